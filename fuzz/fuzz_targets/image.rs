//! Fuzzes `media::image::{dimensions, fit}` on arbitrary bytes: byte 0 picks small limits
//! (so that decoding stays cheap), the rest is the file. Neither may panic, and a part
//! returned must be within every limit.
#![no_main]

use agent_read_file_engine::media::image::{ImageLimits, dimensions, fit};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [pick, bytes @ ..] = data else {
        return;
    };
    let limits = ImageLimits {
        max_edge: 8 + u32::from(pick & 0x0F) * 8,
        max_pixels: 64 + u64::from(pick >> 4) * 256,
        max_base64_bytes: if pick & 0x10 == 0 { 2_000 } else { 64 },
        max_source_pixels: 1 << 20,
    };
    let declared = dimensions(bytes);
    if let Ok(part) = fit(bytes, &limits) {
        assert!(part.data.len() <= limits.max_base64_bytes);
        assert!(part.width.max(part.height) <= limits.max_edge);
        assert!(u64::from(part.width) * u64::from(part.height) <= limits.max_pixels);
        // The source's size is as shown: turned upright by a JPEG's EXIF orientation, so its
        // header's width and height may come swapped.
        let (width, height) = (part.source_width, part.source_height);
        assert!(
            declared == Ok((part.source_format, width, height))
                || declared == Ok((part.source_format, height, width)),
            "{declared:?} against {:?} {width}x{height}",
            part.source_format
        );
    }
});
