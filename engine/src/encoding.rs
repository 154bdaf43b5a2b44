//! Encoding detection and decoding of a text file's bytes.
//!
//! [`detect_and_decode`] decides the encoding in this order:
//!
//! 1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) decides, and is stripped;
//! 2. else bytes that are valid UTF-8 (pure ASCII included) are UTF-8;
//! 3. else Mozilla's [`chardetng`] guesses among the legacy encodings from the first
//!    [`DETECTION_SAMPLE_BYTES`] (256 KiB; no TLD hint, UTF-8 not allowed as a guess,
//!    ISO-2022-JP not allowed) and [`encoding_rs`] decodes all the bytes without BOM
//!    sniffing.
//!
//! Malformed sequences become U+FFFD; decoding never fails.
//!
//! On short inputs `chardetng` is weakest for Shift_JIS: every Shift_JIS byte pair is also
//! valid in several single-byte Windows code pages, so a kanji-heavy line of fewer than
//! about 20 characters (40 bytes) may be guessed as windows-1250/1251/1252/1256. EUC-JP and
//! GBK are told apart from each other and from Shift_JIS from a handful of characters
//! (they exclude each other through invalid byte sequences). From about 24 Japanese or
//! Chinese characters (48 bytes of non-ASCII text) on the guesses are reliable; see the
//! tests. The TLD hint that would help (`jp`, `cn`) is unknown for a local file and is not
//! passed (`None` means a generic domain such as `com`).
//!
//! `chardetng` is the slow part of the legacy path, its cost growing with its input (the
//! benchmark README has the figures); the UTF-8 check and the decoders run at memory speed.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::Encoding;

/// A file's text, decoded, and the encoding it was read as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The decoded text, without the byte-order mark; malformed sequences are U+FFFD.
    pub text: String,
    /// Lower-case WHATWG name of the encoding: "utf-8", "utf-16le", "utf-16be", "shift_jis",
    /// "euc-jp", "gbk", "windows-1252", ... (a BOM is reported as its encoding, e.g. "utf-8").
    pub encoding: String,
    /// Whether the bytes began with a byte-order mark (which is not part of `text`).
    pub had_bom: bool,
}

/// How much of a file chardetng looks at: its cost grows with the input, and a legacy
/// encoding shows long before 256 KiB.
pub const DETECTION_SAMPLE_BYTES: usize = 256 * 1024;

/// Detects the encoding of `bytes` and decodes them (malformed sequences become U+FFFD).
/// Order: a BOM decides (UTF-8, UTF-16LE, UTF-16BE); else valid UTF-8 is UTF-8 (pure ASCII
/// included); else chardetng guesses from the first [`DETECTION_SAMPLE_BYTES`] (allow
/// UTF-8 = false; tld = None) and encoding_rs decodes the whole input without BOM sniffing.
pub fn detect_and_decode(bytes: &[u8]) -> Decoded {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        // Borrowed when the rest is valid UTF-8, so `into_owned` is the only copy.
        let (text, _had_errors) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return Decoded {
            text: text.into_owned(),
            encoding: whatwg_name(encoding),
            had_bom: true,
        };
    }

    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: text.to_owned(),
            encoding: whatwg_name(encoding_rs::UTF_8),
            had_bom: false,
        };
    }

    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    let sample = &bytes[..bytes.len().min(DETECTION_SAMPLE_BYTES)];
    detector.feed(sample, sample.len() == bytes.len());
    let encoding = detector.guess(None, Utf8Detection::Deny);
    // Non-ASCII input to a legacy decoder always yields an owned string: no extra copy.
    let (text, _had_errors) = encoding.decode_without_bom_handling(bytes);
    Decoded {
        text: text.into_owned(),
        encoding: whatwg_name(encoding),
        had_bom: false,
    }
}

/// The lower-case WHATWG name of `encoding`: `encoding_rs` gives the standard's names in
/// their mixed case (e.g. "Shift_JIS").
fn whatwg_name(encoding: &'static Encoding) -> String {
    encoding.name().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_JP, GBK, SHIFT_JIS, UTF_16BE, UTF_16LE, WINDOWS_1252};
    use proptest::prelude::*;

    /// Encodes `text` with `encoding`, asserting that every character is representable.
    fn encode(text: &str, encoding: &'static Encoding) -> Vec<u8> {
        let (bytes, used, unmappable) = encoding.encode(text);
        assert_eq!(used, encoding, "encode fell back to another encoding");
        assert!(
            !unmappable,
            "{text:?} is not representable in {}",
            encoding.name()
        );
        bytes.into_owned()
    }

    /// UTF-16 bytes (no BOM) of `text`; encoding_rs only encodes to UTF-8 for UTF-16.
    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|unit| {
                if big_endian {
                    unit.to_be_bytes()
                } else {
                    unit.to_le_bytes()
                }
            })
            .collect()
    }

    fn assert_decodes(bytes: &[u8], text: &str, encoding: &str) {
        assert_eq!(
            detect_and_decode(bytes),
            Decoded {
                text: text.to_owned(),
                encoding: encoding.to_owned(),
                had_bom: false,
            }
        );
    }

    const JAPANESE: &str = "吾輩は猫である。名前はまだ無い。\n\
        どこで生れたかとんと見当がつかぬ。\n\
        何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n";

    const JAPANESE_SOURCE: &str = "// 設定ファイルを読み込む\n\
        fn load(path: &str) -> Config {\n\
        \x20   // ファイルが存在しない場合は既定値を返す\n\
        \x20   Config::default()\n\
        }\n";

    const CHINESE: &str = "今天天气很好，我们去公园散步吧。\n\
        这个文件是用简体中文写的，编码是GBK。\n\
        请确认程序能够正确地识别它的编码。\n";

    const FRENCH: &str = "Il a dit : “Bonjour, ça va ?”\n\
        Le café coûte 3 € à l’hôtel, près de la gare.\n\
        Nous étions très déçus par la qualité du dîner.\n";

    const GERMAN: &str = "Grüße aus München!\n\
        Der Preis für die Überfahrt beträgt 5 € pro Person.\n\
        „Schön“, sagte er, „dann fahren wir morgen früh.“\n";

    #[test]
    fn empty_input_is_empty_utf8() {
        assert_decodes(b"", "", "utf-8");
    }

    #[test]
    fn pure_ascii_is_utf8() {
        let text = "fn main() {\n    println!(\"hello\");\n}\n";
        assert_decodes(text.as_bytes(), text, "utf-8");
    }

    #[test]
    fn utf8_without_bom_keeps_non_ascii() {
        let text = format!("{JAPANESE}{FRENCH}{CHINESE}emoji: 🦀\n");
        assert_decodes(text.as_bytes(), &text, "utf-8");
    }

    #[test]
    fn utf8_bom_is_stripped_and_reported() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(FRENCH.as_bytes());
        assert_eq!(
            detect_and_decode(&bytes),
            Decoded {
                text: FRENCH.to_owned(),
                encoding: "utf-8".into(),
                had_bom: true,
            }
        );
    }

    #[test]
    fn utf8_bom_alone_is_empty_text() {
        let decoded = detect_and_decode(b"\xEF\xBB\xBF");
        assert_eq!(decoded.text, "");
        assert_eq!(decoded.encoding, "utf-8");
        assert!(decoded.had_bom);
    }

    #[test]
    fn utf8_bom_with_malformed_rest_stays_utf8_with_replacement() {
        let decoded = detect_and_decode(b"\xEF\xBB\xBFcaf\xE9 ok");
        assert_eq!(decoded.text, "caf\u{FFFD} ok");
        assert_eq!(decoded.encoding, "utf-8");
        assert!(decoded.had_bom);
    }

    #[test]
    fn utf16le_bom() {
        let text = format!("{JAPANESE}{GERMAN}🦀\n");
        let mut bytes = b"\xFF\xFE".to_vec();
        bytes.extend(utf16(&text, false));
        assert_eq!(
            detect_and_decode(&bytes),
            Decoded {
                text,
                encoding: "utf-16le".into(),
                had_bom: true,
            }
        );
    }

    #[test]
    fn utf16be_bom() {
        let text = format!("{CHINESE}{FRENCH}🦀\n");
        let mut bytes = b"\xFE\xFF".to_vec();
        bytes.extend(utf16(&text, true));
        assert_eq!(
            detect_and_decode(&bytes),
            Decoded {
                text,
                encoding: "utf-16be".into(),
                had_bom: true,
            }
        );
    }

    #[test]
    fn utf16_odd_trailing_byte_becomes_replacement() {
        for (bom, big_endian, name) in [
            (&b"\xFF\xFE"[..], false, "utf-16le"),
            (&b"\xFE\xFF"[..], true, "utf-16be"),
        ] {
            let mut bytes = bom.to_vec();
            bytes.extend(utf16("Grüße", big_endian));
            bytes.push(b'x');
            let decoded = detect_and_decode(&bytes);
            assert_eq!(decoded.text, "Grüße\u{FFFD}", "{name}");
            assert_eq!(decoded.encoding, name);
            assert!(decoded.had_bom);
        }
    }

    #[test]
    fn utf16_bom_alone_is_empty_text() {
        assert_eq!(detect_and_decode(b"\xFF\xFE").text, "");
        assert_eq!(detect_and_decode(b"\xFE\xFF").encoding, "utf-16be");
    }

    #[test]
    fn utf16_without_bom_is_not_detected() {
        // chardetng leaves UTF-16 to the BOM layer; ASCII in UTF-16 is valid UTF-8 (NULs).
        let bytes = utf16("abc", false);
        assert_decodes(&bytes, "a\0b\0c\0", "utf-8");
    }

    #[test]
    fn shift_jis() {
        assert_decodes(&encode(JAPANESE, SHIFT_JIS), JAPANESE, "shift_jis");
    }

    #[test]
    fn shift_jis_source_file_with_japanese_comments() {
        let bytes = encode(JAPANESE_SOURCE, SHIFT_JIS);
        assert_decodes(&bytes, JAPANESE_SOURCE, "shift_jis");
    }

    #[test]
    fn euc_jp() {
        assert_decodes(&encode(JAPANESE, EUC_JP), JAPANESE, "euc-jp");
        let bytes = encode(JAPANESE_SOURCE, EUC_JP);
        assert_decodes(&bytes, JAPANESE_SOURCE, "euc-jp");
    }

    #[test]
    fn gbk() {
        assert_decodes(&encode(CHINESE, GBK), CHINESE, "gbk");
    }

    #[test]
    fn windows_1252_french_and_german() {
        assert_decodes(&encode(FRENCH, WINDOWS_1252), FRENCH, "windows-1252");
        assert_decodes(&encode(GERMAN, WINDOWS_1252), GERMAN, "windows-1252");
    }

    #[test]
    fn windows_1252_short_words() {
        for text in ["Café", "Préférences", "Le café coûte 3 € à Paris."] {
            assert_decodes(&encode(text, WINDOWS_1252), text, "windows-1252");
        }
    }

    /// Every prefix (whole characters) of `text` that is at least `min_bytes` long once
    /// encoded is detected as `encoding`.
    fn assert_prefixes_detected(text: &str, encoding: &'static Encoding, min_bytes: usize) {
        let name = whatwg_name(encoding);
        for (end, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
            let prefix = &text[..end];
            let bytes = encode(prefix, encoding);
            if bytes.len() >= min_bytes {
                assert_eq!(
                    detect_and_decode(&bytes).encoding,
                    name,
                    "{} bytes: {prefix:?}",
                    bytes.len()
                );
            }
        }
    }

    /// Short texts: the measured limits behind the module documentation.
    #[test]
    fn short_cjk_prefixes_from_48_bytes_are_reliable() {
        let japanese = [
            JAPANESE,
            JAPANESE_SOURCE,
            "春はあけぼの。やうやう白くなりゆく山ぎは、すこしあかりて、紫だちたる雲のほそくたなびきたる。",
            "国境の長いトンネルを抜けると雪国であった。夜の底が白くなった。信号所に汽車が止まった。",
            "設定ファイルを読み込みます。エラーが発生した場合は、ログを確認してください。",
            "日本経済新聞社は、東京証券取引所の株価指数が大幅に上昇したと報道した。",
        ];
        for text in japanese {
            assert_prefixes_detected(text, SHIFT_JIS, 48);
            assert_prefixes_detected(text, EUC_JP, 48);
        }
        let chinese = [
            CHINESE,
            "中华人民共和国国务院关于加强经济管理工作的通知",
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
            "本程序用于分析输入的数据，并在屏幕上显示结果。如有问题，请联系管理员。",
        ];
        for text in chinese {
            assert_prefixes_detected(text, GBK, 48);
        }
    }

    /// EUC-JP and GBK need only a few characters; Shift_JIS kanji runs do not.
    #[test]
    fn very_short_cjk_behaviour() {
        assert_decodes(&encode("東京都", EUC_JP), "東京都", "euc-jp");
        assert_decodes(&encode("中华人民共和国", GBK), "中华人民共和国", "gbk");
        assert_decodes(&encode("你好，世界！", GBK), "你好，世界！", "gbk");
        let kana_rich = "日本語のテキストファイルです。";
        assert_decodes(&encode(kana_rich, SHIFT_JIS), kana_rich, "shift_jis");
        // A kanji-heavy Shift_JIS fragment of 30 bytes is still guessed as a Windows code
        // page: the documented weakness on short inputs.
        let kanji_heavy = "吾輩は猫である。名前はまだ無い";
        let decoded = detect_and_decode(&encode(kanji_heavy, SHIFT_JIS));
        assert_ne!(decoded.encoding, "shift_jis");
        assert!(decoded.encoding.starts_with("windows-125"), "{decoded:?}");
    }

    #[test]
    fn invalid_utf8_goes_to_the_detector() {
        // Mostly UTF-8 with one stray byte: not UTF-8 any more, and chardetng may not say so.
        let mut bytes = "Grüße, ".as_bytes().to_vec();
        bytes.push(0xFF);
        let decoded = detect_and_decode(&bytes);
        assert_ne!(decoded.encoding, "utf-8");
        assert!(!decoded.had_bom);
    }

    #[test]
    fn random_bytes_do_not_panic() {
        // xorshift64: deterministic pseudo-random bytes.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for len in [1, 2, 3, 7, 64, 1000, 65_536] {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect();
            let decoded = detect_and_decode(&bytes);
            assert!(!decoded.encoding.is_empty());
            assert!(!decoded.text.is_empty());
        }
    }

    #[test]
    fn names_are_the_whatwg_names_in_lower_case() {
        // The Encoding Standard's names (https://encoding.spec.whatwg.org/#names-and-labels),
        // written out here, for the encodings whose spelling there is not lower-case.
        for (encoding, name) in [
            (encoding_rs::BIG5, "big5"),
            (EUC_JP, "euc-jp"),
            (encoding_rs::EUC_KR, "euc-kr"),
            (GBK, "gbk"),
            (encoding_rs::IBM866, "ibm866"),
            (encoding_rs::ISO_2022_JP, "iso-2022-jp"),
            (encoding_rs::ISO_8859_8_I, "iso-8859-8-i"),
            (encoding_rs::KOI8_U, "koi8-u"),
            (SHIFT_JIS, "shift_jis"),
            (UTF_16BE, "utf-16be"),
            (UTF_16LE, "utf-16le"),
            (encoding_rs::UTF_8, "utf-8"),
            (WINDOWS_1252, "windows-1252"),
            (encoding_rs::X_MAC_CYRILLIC, "x-mac-cyrillic"),
        ] {
            assert_eq!(whatwg_name(encoding), name);
        }
    }

    proptest! {
        #[test]
        fn any_bytes_decode_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let decoded = detect_and_decode(&bytes);
            prop_assert_eq!(&decoded.encoding, &decoded.encoding.to_ascii_lowercase());
            prop_assert_eq!(decoded.had_bom, Encoding::for_bom(&bytes).is_some());
        }

        #[test]
        fn valid_utf8_round_trips(text in "\\PC{0,200}") {
            prop_assume!(!text.starts_with('\u{FEFF}'));
            let decoded = detect_and_decode(text.as_bytes());
            prop_assert_eq!(decoded, Decoded { text: text.clone(), encoding: "utf-8".into(), had_bom: false });
        }
    }
}
