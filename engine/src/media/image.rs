//! An image file as a part an AI model accepts: PNG, JPEG, GIF or WebP in, a PNG, JPEG or
//! WebP part out, within the limits every provider keeps ([`ImageLimits`], see
//! `docs/image-limits.md`). An image that already fits is handed over byte for byte; any
//! other is decoded (its first frame), downscaled and encoded again ([`fit`]).
//!
//! Images are hostile input: the size an image declares is checked against
//! [`ImageLimits::max_source_pixels`] from its header, before a pixel is decoded or a buffer
//! sized by pixels allocated, and every decoder runs under a memory limit.

use std::io::{self, BufRead, Cursor, Read, Seek, SeekFrom};
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine;
use fast_image_resize as fir;

/// The image formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// Portable Network Graphics (an animated PNG is read as its first frame).
    Png,
    /// JPEG (JFIF or Exif).
    Jpeg,
    /// GIF (87a or 89a); only its first frame is read.
    Gif,
    /// WebP, lossy or lossless; only the first frame of an animation is read.
    Webp,
}

impl ImageFormat {
    /// The format's MIME type: "image/png", "image/jpeg", "image/gif" or "image/webp".
    pub const fn mime_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    /// The format the magic bytes at the start of `bytes` name (the PNG signature, JPEG's
    /// `FF D8 FF`, `GIF87a`/`GIF89a`, `RIFF....WEBP`); `None` for anything else.
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        if bytes.starts_with(PNG_SIGNATURE) {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// What an image part may be, so that every provider accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    /// The longest edge of the part, in pixels.
    pub max_edge: u32,
    /// Width x height of the part.
    pub max_pixels: u64,
    /// Length of the part's data as base64 text (providers count base64 bytes).
    pub max_base64_bytes: usize,
    /// Width x height a source image may declare; over it, refused from the header, before
    /// any pixel is decoded or allocated.
    pub max_source_pixels: u64,
}

impl Default for ImageLimits {
    /// Limits that Anthropic, OpenAI and Google Gemini models all accept as they are
    /// (`docs/image-limits.md` says where each number comes from): a long edge of 1568 px
    /// and 1.15 megapixels (Claude's size before it scales an image down, and under the
    /// other two's own scaling), 5 MiB of base64 (Claude's per-image cap, the smallest of
    /// the three), and sources up to 50 megapixels (a 48 MP phone photo; the decoded
    /// source then takes at most 200 MB).
    fn default() -> Self {
        Self {
            max_edge: 1568,
            max_pixels: 1_150_000,
            max_base64_bytes: 5 * 1024 * 1024,
            max_source_pixels: 50_000_000,
        }
    }
}

/// An image made to fit: encoded, as base64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FittedImage {
    /// The part's format (a GIF, or a source encoded again, may become PNG or JPEG).
    pub format: ImageFormat,
    /// The encoded part, as base64 (standard alphabet, padded).
    pub data: String,
    /// The part's width, in pixels.
    pub width: u32,
    /// The part's height, in pixels.
    pub height: u32,
    /// The source's format.
    pub source_format: ImageFormat,
    /// The width the source declares.
    pub source_width: u32,
    /// The height the source declares.
    pub source_height: u32,
    /// The source's length in bytes.
    pub source_bytes: u64,
    /// `false` when the source already fit and is handed over byte for byte.
    pub resized: bool,
}

/// Why an image cannot be made a part.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImageError {
    /// The bytes are not one of the formats (magic bytes unknown).
    #[error("not a PNG, JPEG, GIF or WebP image")]
    NotAnImage,
    /// The header declares more pixels than `max_source_pixels` (checked before decoding).
    #[error("the image declares {width}x{height} pixels, more than the {max} pixels read")]
    TooManyPixels {
        /// The width the header declares.
        width: u32,
        /// The height the header declares.
        height: u32,
        /// [`ImageLimits::max_source_pixels`].
        max: u64,
    },
    /// A JPEG of so many scans for its size that decoding it would take seconds: every scan
    /// of a progressive JPEG walks all of its blocks (checked before decoding).
    #[error(
        "the JPEG has {scans} scans of {width}x{height} pixels; at that size at most {max_scans} are read"
    )]
    TooManyScans {
        /// The scans (`SOS` markers) the file holds.
        scans: u64,
        /// The width the header declares.
        width: u32,
        /// The height the header declares.
        height: u32,
        /// The most scans read at this size: [`MAX_SCAN_PIXELS`] over its pixels.
        max_scans: u64,
    },
    /// Its caller gave up on it (the call's signal fired): the decode stopped at its next read
    /// of the image's bytes, or between its steps.
    #[error("the read was stopped before it ended")]
    Stopped,
    /// Truncated, corrupt, or otherwise undecodable; the string says what, in a few words.
    #[error("the image cannot be decoded: {0}")]
    Corrupt(String),
    /// Even at the smallest size tried, the part is over `max_base64_bytes`.
    #[error(
        "the image does not fit in {max} bytes of base64: even at {width}x{height} it takes {smallest}"
    )]
    CannotFit {
        /// [`ImageLimits::max_base64_bytes`].
        max: usize,
        /// The base64 length of the smallest part tried.
        smallest: usize,
        /// The width of the smallest part tried.
        width: u32,
        /// The height of the smallest part tried.
        height: u32,
    },
}

fn corrupt(what: impl Into<String>) -> ImageError {
    ImageError::Corrupt(what.into())
}

/// The format and the width and height `bytes` declare, from the header alone.
pub fn dimensions(bytes: &[u8]) -> Result<(ImageFormat, u32, u32), ImageError> {
    let header = Header::read(bytes)?;
    Ok((header.format, header.width, header.height))
}

/// What the header says, and what a walk over the file's chunks or markers (no decoding)
/// finds out about handing it over as it is.
struct Header {
    format: ImageFormat,
    width: u32,
    height: u32,
    /// JPEG sample precision (8, or 12 and more for 16-bit output).
    precision: u8,
    /// A format every provider reads, one frame, upright, and no sign of truncation.
    plain: bool,
    /// How the stored pixels are turned to be seen (EXIF orientation, 1 to 8; 1 upright).
    orientation: u8,
}

impl Header {
    fn read(bytes: &[u8]) -> Result<Self, ImageError> {
        let format = ImageFormat::sniff(bytes).ok_or(ImageError::NotAnImage)?;
        let header = match format {
            ImageFormat::Png => png_header(bytes)?,
            ImageFormat::Jpeg => jpeg_header(bytes)?,
            ImageFormat::Gif => gif_header(bytes)?,
            ImageFormat::Webp => webp_header(bytes)?,
        };
        if header.width == 0 || header.height == 0 {
            return Err(corrupt("the header declares an empty image"));
        }
        Ok(header)
    }

    fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// Width and height as the image is seen: swapped when its orientation turns it a
    /// quarter (EXIF 5 to 8).
    fn upright_size(&self) -> (u32, u32) {
        if self.orientation >= 5 {
            (self.height, self.width)
        } else {
            (self.width, self.height)
        }
    }
}

/// The orientation (1 to 8) an APP1 segment's EXIF data (`Exif\0\0`, then a TIFF header and
/// its first directory) gives, if it has a valid one.
fn exif_orientation(app1: &[u8]) -> Option<u8> {
    let tiff = app1.strip_prefix(b"Exif\0\0")?;
    let big_endian = match tiff.get(..2)? {
        b"MM" => true,
        b"II" => false,
        _ => return None,
    };
    let u16_at = |at: usize| {
        if big_endian {
            be_u16(tiff, at)
        } else {
            le_u16(tiff, at)
        }
    };
    let u32_at = |at: usize| {
        if big_endian {
            be_u32(tiff, at)
        } else {
            le_u32(tiff, at)
        }
    };
    let directory = usize::try_from(u32_at(4)?).ok()?;
    let entries = u16_at(directory)?;
    (0..usize::from(entries))
        .map(|index| directory + 2 + index * 12)
        .find(|&entry| u16_at(entry) == Some(0x0112))
        .and_then(|entry| u16_at(entry + 8))
        .and_then(|value| u8::try_from(value).ok())
        .filter(|value| (1..=8).contains(value))
}

/// `pixels` turned as EXIF `orientation` says, so that they are seen upright.
fn upright(pixels: Pixels, orientation: u8) -> Pixels {
    if orientation <= 1 || orientation > 8 {
        return pixels;
    }
    let (w, h) = (pixels.width as usize, pixels.height as usize);
    let n = usize::from(pixels.channels);
    let quarter = orientation >= 5;
    let (out_w, out_h) = if quarter { (h, w) } else { (w, h) };
    let mut data = Vec::with_capacity(pixels.data.len());
    for y in 0..out_h {
        for x in 0..out_w {
            // Where the pixel seen at (x, y) is stored.
            let (sx, sy) = match orientation {
                2 => (w - 1 - x, y),
                3 => (w - 1 - x, h - 1 - y),
                4 => (x, h - 1 - y),
                5 => (y, x),
                6 => (y, h - 1 - x),
                7 => (w - 1 - y, h - 1 - x),
                _ => (w - 1 - y, x),
            };
            let at = (sy * w + sx) * n;
            data.extend_from_slice(&pixels.data[at..at + n]);
        }
    }
    Pixels {
        width: out_w as u32,
        height: out_h as u32,
        channels: pixels.channels,
        data,
    }
}

fn be_u16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn le_u16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn le_u24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn png_header(bytes: &[u8]) -> Result<Header, ImageError> {
    if bytes.get(12..16) != Some(b"IHDR") {
        return Err(corrupt("a PNG without its IHDR header"));
    }
    let (Some(width), Some(height)) = (be_u32(bytes, 16), be_u32(bytes, 20)) else {
        return Err(corrupt("a truncated PNG header"));
    };
    // A walk over the chunks: an animation control chunk means frames, and a file without
    // IEND is truncated. The walk also refuses the palettes the png crate (0.18) panics on
    // instead of refusing: a PLTE whose length is not whole entries, up to 256, and a tRNS
    // with more entries than the palette.
    let indexed = bytes.get(25) == Some(&3);
    let mut palette_entries = None;
    let (mut animated, mut whole) = (false, false);
    let mut at = 8usize;
    while let (Some(len), Some(kind)) = (be_u32(bytes, at), bytes.get(at + 4..at + 8)) {
        match kind {
            b"acTL" => animated = true,
            b"PLTE" => {
                if len == 0 || len % 3 != 0 || len > 768 {
                    return Err(corrupt("a PNG palette of a broken length"));
                }
                palette_entries.get_or_insert(len / 3);
            }
            b"tRNS" if indexed && len > palette_entries.unwrap_or(0) => {
                return Err(corrupt("a PNG transparency longer than its palette"));
            }
            b"IEND" => {
                whole = true;
                break;
            }
            _ => {}
        }
        match (len as usize)
            .checked_add(12)
            .and_then(|n| at.checked_add(n))
        {
            Some(next) if next <= bytes.len() => at = next,
            _ => break,
        }
    }
    let plain = whole && !animated;
    Ok(Header {
        format: ImageFormat::Png,
        width,
        height,
        precision: 8,
        plain,
        orientation: 1,
    })
}

fn jpeg_header(bytes: &[u8]) -> Result<Header, ImageError> {
    let mut at = 2usize;
    let mut orientation = 1;
    loop {
        if bytes.get(at) != Some(&0xFF) {
            return Err(corrupt(if at >= bytes.len() {
                "a truncated JPEG header"
            } else {
                "a JPEG marker expected"
            }));
        }
        let Some(&marker) = bytes.get(at + 1) else {
            return Err(corrupt("a truncated JPEG header"));
        };
        match marker {
            // Fill bytes before a marker.
            0xFF => at += 1,
            // Markers without a length.
            0x01 | 0xD0..=0xD8 => at += 2,
            0xD9 | 0xDA => return Err(corrupt("a JPEG without a frame header")),
            _ => {
                let Some(len) = be_u16(bytes, at + 2) else {
                    return Err(corrupt("a truncated JPEG header"));
                };
                if marker == 0xE1 {
                    let end = (at + 2 + usize::from(len)).min(bytes.len());
                    orientation = exif_orientation(&bytes[(at + 4).min(end)..end]).unwrap_or(1);
                }
                let is_frame =
                    matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
                if is_frame {
                    let (Some(&precision), Some(height), Some(width), Some(&components)) = (
                        bytes.get(at + 4),
                        be_u16(bytes, at + 5),
                        be_u16(bytes, at + 7),
                        bytes.get(at + 9),
                    ) else {
                        return Err(corrupt("a truncated JPEG frame header"));
                    };
                    // Huffman-coded baseline, extended or progressive, grey or YCbCr, 8-bit:
                    // what every provider's decoder reads; and an end of image after the
                    // first scan, or it is truncated.
                    let common = matches!(marker, 0xC0..=0xC2)
                        && precision == 8
                        && matches!(components, 1 | 3);
                    let rest = &bytes[at..];
                    let whole = memchr::memmem::find(rest, &[0xFF, 0xDA]).is_some_and(|sos| {
                        memchr::memmem::rfind(&rest[sos..], &[0xFF, 0xD9]).is_some()
                    });
                    return Ok(Header {
                        format: ImageFormat::Jpeg,
                        width: u32::from(width),
                        height: u32::from(height),
                        precision,
                        plain: common && whole && orientation == 1,
                        orientation,
                    });
                }
                at += 2 + usize::from(len);
            }
        }
    }
}

fn gif_header(bytes: &[u8]) -> Result<Header, ImageError> {
    let (Some(width), Some(height)) = (le_u16(bytes, 6), le_u16(bytes, 8)) else {
        return Err(corrupt("a truncated GIF header"));
    };
    // Never handed over: Gemini does not list GIF, OpenAI takes only still GIFs, and
    // whether a GIF is still is known only by decoding it.
    Ok(Header {
        format: ImageFormat::Gif,
        width: u32::from(width),
        height: u32::from(height),
        precision: 8,
        plain: false,
        orientation: 1,
    })
}

fn webp_header(bytes: &[u8]) -> Result<Header, ImageError> {
    let truncated = || corrupt("a truncated WebP header");
    let whole = le_u32(bytes, 4)
        .and_then(|riff| (riff as usize).checked_add(8))
        .is_some_and(|end| end <= bytes.len());
    let (width, height, animated) = match bytes.get(12..16).ok_or_else(truncated)? {
        b"VP8 " => {
            if bytes.get(23..26) != Some(&[0x9D, 0x01, 0x2A]) {
                return Err(corrupt("a VP8 frame without its start code"));
            }
            let w = le_u16(bytes, 26).ok_or_else(truncated)? & 0x3FFF;
            let h = le_u16(bytes, 28).ok_or_else(truncated)? & 0x3FFF;
            (u32::from(w), u32::from(h), false)
        }
        b"VP8L" => {
            if bytes.get(20) != Some(&0x2F) {
                return Err(corrupt("a VP8L image without its signature"));
            }
            let bits = le_u32(bytes, 21).ok_or_else(truncated)?;
            ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, false)
        }
        b"VP8X" => {
            let flags = *bytes.get(20).ok_or_else(truncated)?;
            let w = le_u24(bytes, 24).ok_or_else(truncated)? + 1;
            let h = le_u24(bytes, 27).ok_or_else(truncated)? + 1;
            (w, h, flags & 0x02 != 0)
        }
        _ => return Err(corrupt("a WebP without an image chunk")),
    };
    Ok(Header {
        format: ImageFormat::Webp,
        width,
        height,
        precision: 8,
        plain: whole && !animated,
        orientation: 1,
    })
}

/// The length of `n` bytes as padded base64.
const fn base64_len(n: usize) -> usize {
    n.div_ceil(3).saturating_mul(4)
}

/// The largest size within `limits` with the aspect ratio of `width` x `height`, never
/// larger than it.
fn target_size(width: u32, height: u32, limits: &ImageLimits) -> (u32, u32) {
    let (w, h) = (f64::from(width), f64::from(height));
    let by_edge = f64::from(limits.max_edge.max(1)) / w.max(h);
    let by_pixels = (limits.max_pixels.max(1) as f64 / (w * h)).sqrt();
    let scale = by_edge.min(by_pixels).min(1.0);
    scaled(width, height, scale, limits)
}

fn scaled(width: u32, height: u32, scale: f64, limits: &ImageLimits) -> (u32, u32) {
    let mut tw = ((f64::from(width) * scale) as u32).clamp(1, width);
    let mut th = ((f64::from(height) * scale) as u32).clamp(1, height);
    // Rounding (or an extreme aspect ratio clamped to one pixel) can still step over a limit.
    while u64::from(tw) * u64::from(th) > limits.max_pixels.max(1) && (tw > 1 || th > 1) {
        if tw >= th {
            tw -= 1;
        } else {
            th -= 1;
        }
    }
    let edge = limits.max_edge.max(1);
    (tw.min(edge), th.min(edge))
}

/// Decoded pixels: 8 bits a channel, 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA)
/// channels, rows without padding.
struct Pixels {
    width: u32,
    height: u32,
    channels: u8,
    data: Vec<u8>,
}

impl Pixels {
    fn has_alpha(&self) -> bool {
        self.channels.is_multiple_of(2)
    }

    fn opaque(&self) -> bool {
        let n = usize::from(self.channels);
        !self.has_alpha() || self.data.chunks_exact(n).all(|p| p[n - 1] == 255)
    }
}

/// The image `bytes` as a part within `limits`.
///
/// Handed over as it is when it is a PNG, JPEG or WebP of one frame whose size, pixels and
/// base64 length are within the limits and whose file looks whole (no decoding beyond the
/// header). Otherwise decoded (a GIF's or an animation's first frame), downscaled with its
/// aspect ratio kept (Lanczos3), and encoded again: a JPEG source as JPEG (quality 80),
/// any other as PNG, alpha kept; an opaque PNG over the byte limit becomes a JPEG, and a
/// part still over it is made smaller, three quarters of the edge at a time, down to a
/// long edge of [`MIN_EDGE`] pixels ([`ImageError::CannotFit`] below that).
pub fn fit(bytes: &[u8], limits: &ImageLimits) -> Result<FittedImage, ImageError> {
    fit_or_stop(bytes, limits, None)
}

/// [`fit`], given up ([`ImageError::Stopped`]) once `stop` is set: a decode looks at it each
/// time it reads the image's bytes ([`StoppableBytes`]), and every image between decoding,
/// resizing and each encoding. A lossy WebP, which reads its bytes before it decodes them,
/// runs to its end, bounded by the pixels checked before it.
pub fn fit_or_stop(
    bytes: &[u8],
    limits: &ImageLimits,
    stop: Option<&AtomicBool>,
) -> Result<FittedImage, ImageError> {
    let stopped = || {
        if is_set(stop) {
            Err(ImageError::Stopped)
        } else {
            Ok(())
        }
    };
    let header = Header::read(bytes)?;
    if header.pixels() > limits.max_source_pixels {
        return Err(ImageError::TooManyPixels {
            width: header.width,
            height: header.height,
            max: limits.max_source_pixels,
        });
    }
    if header.format == ImageFormat::Jpeg {
        check_scans(&header, bytes)?;
    }
    let (upright_width, upright_height) = header.upright_size();
    let (width, height) = target_size(upright_width, upright_height, limits);
    let part = |format, data, width, height, resized| FittedImage {
        format,
        data,
        width,
        height,
        source_format: header.format,
        source_width: upright_width,
        source_height: upright_height,
        source_bytes: bytes.len() as u64,
        resized,
    };
    if header.plain
        && (width, height) == (header.width, header.height)
        && base64_len(bytes.len()) <= limits.max_base64_bytes
    {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        return Ok(part(header.format, data, width, height, false));
    }

    // Decoded at the size stored, widened to RGBA in its own buffer, resized, and only then
    // turned upright: the decoded image is never copied whole (4 bytes a pixel at most).
    let stored = |(width, height)| {
        if header.orientation >= 5 {
            (height, width)
        } else {
            (width, height)
        }
    };
    let (stored_width, stored_height) = stored((width, height));
    stopped()?;
    let source = decode(&header, bytes, limits, (stored_width, stored_height), stop)?;
    let opaque = source.opaque();
    let source = Widened::of(source);
    let (mut width, mut height) = (width, height);
    loop {
        stopped()?;
        let at = stored((width, height));
        let (format, encoded) = encode_within(&source, at, opaque, &header, limits)?;
        let len = base64_len(encoded.len());
        if len <= limits.max_base64_bytes {
            let data = base64::engine::general_purpose::STANDARD.encode(&encoded);
            return Ok(part(format, data, width, height, true));
        }
        let smaller = scaled(width, height, 0.75, limits);
        if smaller.0.max(smaller.1) < MIN_EDGE.min(width.max(height)) || smaller == (width, height)
        {
            return Err(ImageError::CannotFit {
                max: limits.max_base64_bytes,
                smallest: len,
                width,
                height,
            });
        }
        (width, height) = smaller;
    }
}

/// The most pixels a JPEG's scans may cover together (each scan's pixels, summed), which
/// bounds the time of its decode: 64 scans of the largest image read. A progressive JPEG's
/// decoder walks every block of the image in every scan, so a file of a few hundred KB and
/// 2,000 scans of 49 megapixels took 10-14 s; common encoders write 10 scans or fewer.
pub const MAX_SCAN_PIXELS: u64 = 64 * 50_000_000;

/// [`ImageError::TooManyScans`] when the JPEG's scans cover more than [`MAX_SCAN_PIXELS`].
/// Scans are counted by their `SOS` markers: the entropy-coded data stuffs every `0xFF`, so
/// only a marker (or a thumbnail's, in an `APP` segment: counted too, the safe way) holds
/// `FF DA`.
fn check_scans(header: &Header, bytes: &[u8]) -> Result<(), ImageError> {
    let scans = memchr::memmem::find_iter(bytes, &[0xFF, 0xDA]).count() as u64;
    let max_scans = MAX_SCAN_PIXELS / header.pixels().max(1);
    if scans <= max_scans {
        return Ok(());
    }
    Err(ImageError::TooManyScans {
        scans,
        width: header.width,
        height: header.height,
        max_scans,
    })
}

/// The shortest long edge [`fit`] makes a part to meet the byte limit; a part that would
/// need to be smaller is refused, as a model could read little of it.
pub const MIN_EDGE: u32 = 64;

/// `source` at `(width, height)` as stored, turned upright, encoded: a JPEG source as JPEG;
/// any other as PNG, and as JPEG when an opaque PNG is over the byte limit.
fn encode_within(
    source: &Widened,
    (width, height): (u32, u32),
    opaque: bool,
    header: &Header,
    limits: &ImageLimits,
) -> Result<(ImageFormat, Vec<u8>), ImageError> {
    let resized = upright(resize(source, width, height, opaque)?, header.orientation);
    if header.format == ImageFormat::Jpeg {
        return Ok((ImageFormat::Jpeg, encode_jpeg(&resized)?));
    }
    let png = encode_png(&resized)?;
    if base64_len(png.len()) <= limits.max_base64_bytes || !opaque {
        return Ok((ImageFormat::Png, png));
    }
    let jpeg = encode_jpeg(&resized)?;
    Ok(if jpeg.len() < png.len() {
        (ImageFormat::Jpeg, jpeg)
    } else {
        (ImageFormat::Png, png)
    })
}

/// `source` at `width` x `height` (Lanczos3, alpha premultiplied while filtering), in the
/// channels it was decoded with, without its alpha channel when `opaque`.
fn resize(source: &Widened, width: u32, height: u32, opaque: bool) -> Result<Pixels, ImageError> {
    let rgba = &source.rgba;
    let resized = if (width, height) == (rgba.width, rgba.height) {
        Pixels {
            data: rgba.data.clone(),
            ..*rgba
        }
    } else {
        resize_rgba(rgba, width, height, opaque)?
    };
    let mut out = if source.channels == 4 {
        resized
    } else {
        narrow_from_rgba(&resized, source.channels)
    };
    if opaque && out.has_alpha() {
        let n = usize::from(out.channels);
        let mut at = 0usize;
        out.data.retain(|_| {
            at += 1;
            !at.is_multiple_of(n)
        });
        out.channels -= 1;
    }
    Ok(out)
}

/// A decoded image as the resizer takes it: RGBA, and the channels it was decoded with. The
/// resizer is instantiated for that one pixel type (each instance is SIMD code for every CPU
/// it may run on, the largest part of the addon), so other pixels are widened to RGBA before
/// and narrowed back after.
struct Widened {
    rgba: Pixels,
    channels: u8,
}

impl Widened {
    /// `pixels` widened to RGBA in their own buffer, grown in place: a large buffer grows by
    /// remapping its pages, so the image is never held twice (at most 4 bytes a pixel).
    fn of(mut pixels: Pixels) -> Widened {
        let channels = pixels.channels;
        let n = usize::from(channels);
        if n != 4 {
            let count = pixels.data.len() / n;
            pixels.data.resize(count * 4, 0);
            // From the last pixel back: each lands at or after where it was read from, and
            // after every pixel still to be read.
            for i in (0..count).rev() {
                let at = i * n;
                let [r, g, b] = if n <= 2 {
                    [pixels.data[at]; 3]
                } else {
                    [pixels.data[at], pixels.data[at + 1], pixels.data[at + 2]]
                };
                let alpha = if n == 2 { pixels.data[at + 1] } else { 255 };
                pixels.data[i * 4..i * 4 + 4].copy_from_slice(&[r, g, b, alpha]);
            }
            pixels.channels = 4;
        }
        Widened {
            rgba: pixels,
            channels,
        }
    }
}

/// `rgba` resized to `width` x `height`.
fn resize_rgba(rgba: &Pixels, width: u32, height: u32, opaque: bool) -> Result<Pixels, ImageError> {
    let options = fir::ResizeOptions::new()
        .resize_alg(fir::ResizeAlg::Convolution(fir::FilterType::Lanczos3))
        .use_alpha(!opaque);
    let mut data = vec![0u8; width as usize * height as usize * 4];
    resize_typed::<fir::pixels::U8x4>(rgba, (width, height, &mut data), &options)
        .map_err(|e| corrupt(format!("resizing failed ({e})")))?;
    Ok(Pixels {
        width,
        height,
        channels: 4,
        data,
    })
}

/// One typed resize of `source` into `(width, height, buffer)`.
fn resize_typed<P: fir::PixelTrait>(
    source: &Pixels,
    (width, height, buffer): (u32, u32, &mut [u8]),
    options: &fir::ResizeOptions,
) -> Result<(), String> {
    let src =
        fir::images::TypedImageRef::<P>::from_buffer(source.width, source.height, &source.data)
            .map_err(|e| e.to_string())?;
    let mut dst = fir::images::TypedImage::<P>::from_buffer(width, height, buffer)
        .map_err(|e| e.to_string())?;
    fir::Resizer::new()
        .resize_typed(&src, &mut dst, options)
        .map_err(|e| e.to_string())
}

/// RGBA pixels back in the layout of `channels` (grey, grey and alpha, or RGB).
fn narrow_from_rgba(rgba: &Pixels, channels: u8) -> Pixels {
    let mut data = Vec::with_capacity(rgba.data.len() / 4 * usize::from(channels));
    for pixel in rgba.data.chunks_exact(4) {
        match channels {
            1 => data.push(pixel[0]),
            2 => data.extend_from_slice(&[pixel[0], pixel[3]]),
            _ => data.extend_from_slice(&pixel[..3]),
        }
    }
    Pixels {
        channels,
        data,
        ..*rgba
    }
}

fn encode_png(p: &Pixels) -> Result<Vec<u8>, ImageError> {
    let failed = |e: png::EncodingError| corrupt(format!("PNG encoding failed ({e})"));
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, p.width, p.height);
    encoder.set_color(match p.channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    });
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(&p.data).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(out)
}

/// The JPEG quality of a part encoded again: text stays legible, and a 1.15 MP photo
/// takes a few hundred kilobytes.
const JPEG_QUALITY: u8 = 80;

fn encode_jpeg(p: &Pixels) -> Result<Vec<u8>, ImageError> {
    let (Ok(width), Ok(height)) = (u16::try_from(p.width), u16::try_from(p.height)) else {
        return Err(corrupt("too large for a JPEG part"));
    };
    let color = match p.channels {
        1 => jpeg_encoder::ColorType::Luma,
        3 => jpeg_encoder::ColorType::Rgb,
        4 => jpeg_encoder::ColorType::Rgba,
        _ => return Err(corrupt("grey with alpha cannot be a JPEG part")),
    };
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
        .encode(&p.data, width, height, color)
        .map_err(|e| corrupt(format!("JPEG encoding failed ({e})")))?;
    Ok(out)
}

/// The bytes a decoder may allocate: the decoded source at 4 bytes a pixel, and room for
/// its tables and metadata.
fn memory_limit(limits: &ImageLimits) -> u64 {
    limits
        .max_source_pixels
        .saturating_mul(4)
        .saturating_add(16 << 20)
}

fn decode(
    header: &Header,
    bytes: &[u8],
    limits: &ImageLimits,
    (width, height): (u32, u32),
    stop: Option<&AtomicBool>,
) -> Result<Pixels, ImageError> {
    let pixels = match header.format {
        ImageFormat::Png => decode_png(bytes, limits, stop),
        ImageFormat::Jpeg => decode_jpeg(
            header,
            StoppableBytes::new(bytes, stop),
            limits,
            width,
            height,
        ),
        ImageFormat::Gif => decode_gif(StoppableBytes::new(bytes, stop), limits),
        ImageFormat::Webp => decode_webp(StoppableBytes::new(bytes, stop), limits),
    };
    // A decoder stopped by its reader says only that its read failed.
    let pixels = match pixels {
        Err(_) if is_set(stop) => return Err(ImageError::Stopped),
        pixels => pixels?,
    };
    // The decoders agree with the header, but the resizer needs the buffer to match.
    let expected = u64::from(pixels.width) * u64::from(pixels.height) * u64::from(pixels.channels);
    if pixels.width == 0 || pixels.height == 0 || pixels.data.len() as u64 != expected {
        return Err(corrupt("the decoder returned a buffer of the wrong size"));
    }
    Ok(pixels)
}

/// Whether the caller gave up on the read.
fn is_set(stop: Option<&AtomicBool>) -> bool {
    stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
}

/// An image's bytes for a decoder that reads them as it decodes (a PNG's rows, a JPEG's scans,
/// a GIF's frame, a lossless WebP) and has no hook to stop it: every read looks at the
/// stop flag, and fails once it is set, so the decode ends at its next read.
struct StoppableBytes<'a> {
    bytes: Cursor<&'a [u8]>,
    stop: Option<&'a AtomicBool>,
}

impl<'a> StoppableBytes<'a> {
    fn new(bytes: &'a [u8], stop: Option<&'a AtomicBool>) -> StoppableBytes<'a> {
        StoppableBytes {
            bytes: Cursor::new(bytes),
            stop,
        }
    }

    fn go_on(&self) -> io::Result<()> {
        if is_set(self.stop) {
            return Err(io::Error::other("the read was stopped"));
        }
        Ok(())
    }
}

impl Read for StoppableBytes<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.go_on()?;
        self.bytes.read(buf)
    }
}

impl BufRead for StoppableBytes<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.go_on()?;
        self.bytes.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.bytes.consume(amount);
    }
}

impl Seek for StoppableBytes<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.bytes.seek(to)
    }
}

fn decode_png(
    bytes: &[u8],
    limits: &ImageLimits,
    stop: Option<&AtomicBool>,
) -> Result<Pixels, ImageError> {
    let failed = |e: png::DecodingError| match e {
        png::DecodingError::LimitsExceeded => corrupt("a PNG over the decoder's memory limit"),
        e => corrupt(format!("PNG: {e}")),
    };
    let memory = usize::try_from(memory_limit(limits)).unwrap_or(usize::MAX);
    let mut decoder = png::Decoder::new_with_limits(
        StoppableBytes::new(bytes, stop),
        png::Limits { bytes: memory },
    );
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(failed)?;
    let (color, depth) = reader.output_color_type();
    let channels = match (color, depth) {
        (png::ColorType::Grayscale, png::BitDepth::Eight) => 1,
        (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight) => 2,
        (png::ColorType::Rgb, png::BitDepth::Eight) => 3,
        (png::ColorType::Rgba, png::BitDepth::Eight) => 4,
        _ => return Err(corrupt("a PNG color type not expanded to 8 bits")),
    };
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| corrupt("a PNG too large"))?;
    let mut data = vec![0; size];
    let (width, height) = reader.info().size();
    let frame = reader.next_frame(&mut data).map_err(failed)?;
    data.truncate(frame.buffer_size());
    Ok(Pixels {
        width,
        height,
        channels,
        data,
    })
}

fn decode_jpeg(
    header: &Header,
    bytes: StoppableBytes<'_>,
    limits: &ImageLimits,
    width: u32,
    height: u32,
) -> Result<Pixels, ImageError> {
    let failed = |e: jpeg_decoder::Error| corrupt(format!("JPEG: {e}"));
    let mut decoder = jpeg_decoder::Decoder::new(bytes);
    decoder
        .set_max_decoding_buffer_size(usize::try_from(memory_limit(limits)).unwrap_or(usize::MAX));
    decoder.read_info().map_err(failed)?;
    // DCT scaling: a JPEG decodes at 1/2, 1/4 or 1/8 of its size for the cost of the
    // entropy decoding alone, and still at least as large as the part.
    let (Ok(w), Ok(h)) = (u16::try_from(width), u16::try_from(height)) else {
        return Err(corrupt("a JPEG larger than JPEG allows"));
    };
    let (out_w, out_h) = decoder.scale(w, h).map_err(failed)?;
    let data = decoder.decode().map_err(failed)?;
    let info = decoder
        .info()
        .ok_or_else(|| corrupt("a JPEG without a frame"))?;
    let (channels, data) = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => (1, data),
        jpeg_decoder::PixelFormat::RGB24 => (3, data),
        jpeg_decoder::PixelFormat::L16 => {
            let shift = u32::from(header.precision.clamp(8, 16) - 8);
            let grey = data
                .chunks_exact(2)
                .map(|s| (u16::from_ne_bytes([s[0], s[1]]) >> shift).min(255) as u8)
                .collect();
            (1, grey)
        }
        jpeg_decoder::PixelFormat::CMYK32 => {
            let ink = |v: u8, k: u8| ((255 - u16::from(v)) * (255 - u16::from(k)) / 255) as u8;
            let rgb = data
                .chunks_exact(4)
                .flat_map(|p| [ink(p[0], p[3]), ink(p[1], p[3]), ink(p[2], p[3])])
                .collect();
            (3, rgb)
        }
    };
    Ok(Pixels {
        width: u32::from(out_w),
        height: u32::from(out_h),
        channels,
        data,
    })
}

fn decode_gif(bytes: StoppableBytes<'_>, limits: &ImageLimits) -> Result<Pixels, ImageError> {
    let failed = |e: gif::DecodingError| corrupt(format!("GIF: {e}"));
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    if let Some(memory) = NonZeroU64::new(memory_limit(limits)) {
        options.set_memory_limit(gif::MemoryLimit::Bytes(memory));
    }
    let mut decoder = options.read_info(bytes).map_err(failed)?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let frame = decoder
        .read_next_frame()
        .map_err(failed)?
        .ok_or_else(|| corrupt("a GIF without a frame"))?;
    // The first frame over a transparent screen, cut to the screen.
    let (fw, fh) = (usize::from(frame.width), usize::from(frame.height));
    if frame.buffer.len() != fw * fh * 4 {
        return Err(corrupt("a GIF frame of the wrong size"));
    }
    let mut data = vec![0u8; width as usize * height as usize * 4];
    let (left, top) = (usize::from(frame.left), usize::from(frame.top));
    let cols = fw.min((width as usize).saturating_sub(left));
    let rows = if cols == 0 {
        0
    } else {
        fh.min((height as usize).saturating_sub(top))
    };
    for row in 0..rows {
        let src = &frame.buffer[row * fw * 4..][..cols * 4];
        let at = ((top + row) * width as usize + left) * 4;
        data[at..at + cols * 4].copy_from_slice(src);
    }
    Ok(Pixels {
        width,
        height,
        channels: 4,
        data,
    })
}

fn decode_webp(bytes: StoppableBytes<'_>, limits: &ImageLimits) -> Result<Pixels, ImageError> {
    let failed = |e: image_webp::DecodingError| corrupt(format!("WebP: {e}"));
    let mut decoder = image_webp::WebPDecoder::new(bytes).map_err(failed)?;
    decoder.set_memory_limit(usize::try_from(memory_limit(limits)).unwrap_or(usize::MAX));
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > limits.max_source_pixels {
        return Err(ImageError::TooManyPixels {
            width,
            height,
            max: limits.max_source_pixels,
        });
    }
    let channels = if decoder.has_alpha() { 4 } else { 3 };
    let size = decoder
        .output_buffer_size()
        .ok_or_else(|| corrupt("a WebP too large"))?;
    let mut data = vec![0; size];
    decoder.read_image(&mut data).map_err(failed)?;
    Ok(Pixels {
        width,
        height,
        channels,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixels that do not compress: noise from a fixed seed, over a gradient so that
    /// downscaling keeps something to compare.
    fn noise(width: u32, height: u32, channels: usize, seed: u64) -> Vec<u8> {
        let mut state = seed | 1;
        let mut out = Vec::with_capacity(width as usize * height as usize * channels);
        for y in 0..height {
            for x in 0..width {
                for c in 0..channels {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let base = ((x + y) * 190 / (width + height)) as u8;
                    out.push(if c == 3 {
                        255
                    } else {
                        base.wrapping_add((state % 64) as u8)
                    });
                }
            }
        }
        out
    }

    fn png_of(width: u32, height: u32, color: png::ColorType, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(data).unwrap();
        writer.finish().unwrap();
        out
    }

    /// Issue 35 §2: an abort did not stop an image's read: told before, it does not start.
    #[test]
    fn a_read_told_to_stop_gives_up_before_decoding() {
        let (width, height) = (2000, 300);
        let png = png_of(
            width,
            height,
            png::ColorType::Rgb,
            &noise(width, height, 3, 7),
        );
        let jpeg = jpeg_of(width as u16, height as u16, &noise(width, height, 3, 7));
        let (limits, stop) = (ImageLimits::default(), AtomicBool::new(true));
        for bytes in [&png, &jpeg] {
            let stopped = fit_or_stop(bytes, &limits, Some(&stop));
            assert!(
                matches!(stopped, Err(ImageError::Stopped)),
                "{:?}",
                stopped.err()
            );
        }
    }

    /// Issue 35 §2: an image's decode ran to its end after an abort. The decoders read the
    /// bytes as they decode, and each read looks at the stop flag.
    #[test]
    fn a_decode_stops_at_its_next_read_once_told() {
        let (width, height) = (1600u32, 1200u32);
        let rgb = noise(width, height, 3, 11);
        let images = [
            ("PNG", png_of(width, height, png::ColorType::Rgb, &rgb)),
            ("JPEG", jpeg_of(width as u16, height as u16, &rgb)),
            (
                "GIF",
                grey_gif_of(width as u16, height as u16, &rgb[..rgb.len() / 3]),
            ),
            ("WebP", webp_of(width, height, &rgb)),
        ];
        let limits = ImageLimits::default();
        for (name, bytes) in &images {
            let header = Header::read(bytes).unwrap();
            let started = std::time::Instant::now();
            let whole = decode(&header, bytes, &limits, (width, height), None);
            let whole_time = started.elapsed();
            assert!(whole.is_ok(), "{name}: {:?}", whole.err());
            // Told to stop a tenth of the way through (a decode slower than that is no test).
            assert!(
                whole_time.as_millis() >= 20,
                "{name} decoded in {whole_time:?}"
            );
            let stop = AtomicBool::new(false);
            let stopped = std::thread::scope(|scope| {
                scope.spawn(|| {
                    std::thread::sleep(whole_time / 10);
                    stop.store(true, Ordering::Relaxed);
                });
                decode(&header, bytes, &limits, (width, height), Some(&stop))
            });
            assert!(
                matches!(stopped, Err(ImageError::Stopped)),
                "{name}: {:?}",
                stopped.map(|pixels| pixels.width).err()
            );
        }
    }

    /// A GIF of one frame whose pixels are `greys`, through a palette of 256 greys.
    fn grey_gif_of(width: u16, height: u16, greys: &[u8]) -> Vec<u8> {
        let palette: Vec<u8> = (0..=255).flat_map(|grey| [grey; 3]).collect();
        let mut out = Vec::new();
        let mut encoder = gif::Encoder::new(&mut out, width, height, &palette).unwrap();
        let frame = gif::Frame {
            width,
            height,
            buffer: std::borrow::Cow::Borrowed(greys),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame).unwrap();
        drop(encoder);
        out
    }

    fn jpeg_of(width: u16, height: u16, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        jpeg_encoder::Encoder::new(&mut out, 90)
            .encode(data, width, height, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        out
    }

    fn webp_of(width: u32, height: u32, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        image_webp::WebPEncoder::new(&mut out)
            .encode(data, width, height, image_webp::ColorType::Rgb8)
            .unwrap();
        out
    }

    /// A GIF of 4 x 2 pixels whose first frame is red and second blue.
    fn two_frame_gif() -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut encoder = gif::Encoder::new(&mut out, 4, 2, &[]).unwrap();
            for rgb in [[255u8, 0, 0], [0, 0, 255]] {
                let frame = gif::Frame::from_palette_pixels(4, 2, vec![0; 8], rgb.to_vec(), None);
                encoder.write_frame(&frame).unwrap();
            }
        }
        out
    }

    fn unbase64(part: &FittedImage) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD
            .decode(&part.data)
            .unwrap()
    }

    /// Decodes a part again, with the module's own decoders: (width, height, channels, pixels).
    fn redecode(part: &FittedImage) -> Pixels {
        let bytes = unbase64(part);
        let header = Header::read(&bytes).unwrap();
        let big = ImageLimits {
            max_edge: u32::MAX,
            max_pixels: u64::MAX,
            ..ImageLimits::default()
        };
        decode(&header, &bytes, &big, (header.width, header.height), None).unwrap()
    }

    fn within(part: &FittedImage, limits: &ImageLimits) {
        assert!(
            part.data.len() <= limits.max_base64_bytes,
            "{} base64 bytes",
            part.data.len()
        );
        assert!(part.width.max(part.height) <= limits.max_edge);
        assert!(u64::from(part.width) * u64::from(part.height) <= limits.max_pixels);
        let back = redecode(part);
        assert_eq!((back.width, back.height), (part.width, part.height));
    }

    #[test]
    fn sniffs_the_four_formats_and_nothing_else() {
        let png = png_of(1, 1, png::ColorType::Rgb, &[1, 2, 3]);
        assert_eq!(ImageFormat::sniff(&png), Some(ImageFormat::Png));
        assert_eq!(
            ImageFormat::sniff(&jpeg_of(8, 8, &[9; 192])),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(
            ImageFormat::sniff(b"GIF87a\x01\x00"),
            Some(ImageFormat::Gif)
        );
        assert_eq!(ImageFormat::sniff(&two_frame_gif()), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::sniff(&webp_of(2, 2, &[0; 12])),
            Some(ImageFormat::Webp)
        );
        for other in [
            &b""[..],
            b"fn main() {}\n",
            b"RIFF\x10\x00\x00\x00WAVEfmt ",
            b"GIF88a",
            b"\x89PNG\r\n",
            b"\xFF\xD8",
            b"%PDF-1.7",
        ] {
            assert_eq!(ImageFormat::sniff(other), None, "{other:?}");
            assert_eq!(
                fit(other, &ImageLimits::default()),
                Err(ImageError::NotAnImage)
            );
        }
        assert_eq!(ImageFormat::Png.mime_type(), "image/png");
        assert_eq!(ImageFormat::Jpeg.mime_type(), "image/jpeg");
        assert_eq!(ImageFormat::Gif.mime_type(), "image/gif");
        assert_eq!(ImageFormat::Webp.mime_type(), "image/webp");
    }

    #[test]
    fn dimensions_come_from_the_header() {
        let png = png_of(3, 2, png::ColorType::Rgb, &[7; 18]);
        assert_eq!(dimensions(&png), Ok((ImageFormat::Png, 3, 2)));
        let jpeg = jpeg_of(40, 30, &noise(40, 30, 3, 1));
        assert_eq!(dimensions(&jpeg), Ok((ImageFormat::Jpeg, 40, 30)));
        assert_eq!(dimensions(&two_frame_gif()), Ok((ImageFormat::Gif, 4, 2)));
        let webp = webp_of(5, 7, &noise(5, 7, 3, 2));
        assert_eq!(dimensions(&webp), Ok((ImageFormat::Webp, 5, 7)));
        assert!(matches!(
            dimensions(&png[..20]),
            Err(ImageError::Corrupt(_))
        ));
        assert_eq!(dimensions(b"hello"), Err(ImageError::NotAnImage));
    }

    #[test]
    fn an_image_that_fits_is_handed_over_byte_for_byte() {
        let png = png_of(300, 200, png::ColorType::Rgb, &noise(300, 200, 3, 3));
        let part = fit(&png, &ImageLimits::default()).unwrap();
        assert!(!part.resized);
        assert_eq!(unbase64(&part), png);
        assert_eq!(
            (part.format, part.width, part.height),
            (ImageFormat::Png, 300, 200)
        );
        assert_eq!((part.source_width, part.source_height), (300, 200));
        assert_eq!(part.source_bytes, png.len() as u64);

        let jpeg = jpeg_of(120, 80, &noise(120, 80, 3, 4));
        let part = fit(&jpeg, &ImageLimits::default()).unwrap();
        assert!(!part.resized);
        assert_eq!(unbase64(&part), jpeg);

        let webp = webp_of(64, 48, &noise(64, 48, 3, 5));
        let part = fit(&webp, &ImageLimits::default()).unwrap();
        assert!(!part.resized);
        assert_eq!((part.format, unbase64(&part)), (ImageFormat::Webp, webp));
    }

    #[test]
    fn an_oversized_png_is_downscaled_within_every_limit_with_its_aspect_kept() {
        let png = png_of(2000, 1000, png::ColorType::Rgb, &noise(2000, 1000, 3, 6));
        let limits = ImageLimits::default();
        let part = fit(&png, &limits).unwrap();
        assert!(part.resized);
        assert_eq!(part.format, ImageFormat::Png);
        within(&part, &limits);
        // 1.15 MP at 2:1 is 1516 x 758.
        assert_eq!((part.width, part.height), (1516, 758));
        assert_eq!((part.source_width, part.source_height), (2000, 1000));

        let small = ImageLimits {
            max_edge: 500,
            ..limits
        };
        let part = fit(&png, &small).unwrap();
        assert_eq!((part.width, part.height), (500, 250));
        within(&part, &small);
    }

    #[test]
    fn a_jpeg_stays_a_jpeg() {
        let jpeg = jpeg_of(1800, 1200, &noise(1800, 1200, 3, 7));
        let limits = ImageLimits::default();
        let part = fit(&jpeg, &limits).unwrap();
        assert_eq!(part.format, ImageFormat::Jpeg);
        assert!(part.resized);
        within(&part, &limits);
        assert_eq!((part.width, part.height), (1313, 875));
        // Downscaled, not cut: the gradient runs corner to corner still.
        let back = redecode(&part);
        let first = back.data[0];
        let last = back.data[back.data.len() - 3];
        assert!(last > first.saturating_add(150), "{first} .. {last}");
    }

    #[test]
    fn a_png_with_alpha_stays_a_png_with_alpha() {
        let mut rgba = noise(1800, 1200, 4, 8);
        for (i, px) in rgba.chunks_exact_mut(4).enumerate() {
            // The left half transparent.
            px[3] = if i % 1800 < 900 { 0 } else { 255 };
        }
        let png = png_of(1800, 1200, png::ColorType::Rgba, &rgba);
        let limits = ImageLimits::default();
        let part = fit(&png, &limits).unwrap();
        assert_eq!(part.format, ImageFormat::Png);
        within(&part, &limits);
        let back = redecode(&part);
        assert_eq!(back.channels, 4);
        assert_eq!(back.data[3], 0);
        assert_eq!(back.data[back.data.len() - 1], 255);
    }

    #[test]
    fn an_opaque_rgba_png_loses_only_its_alpha_channel() {
        let png = png_of(1800, 1200, png::ColorType::Rgba, &noise(1800, 1200, 4, 9));
        let part = fit(&png, &ImageLimits::default()).unwrap();
        assert_eq!(part.format, ImageFormat::Png);
        assert_eq!(redecode(&part).channels, 3);
    }

    /// The TIFF data of an EXIF block with one entry, Orientation = `orientation`.
    fn exif_tiff(orientation: u16, big_endian: bool) -> Vec<u8> {
        let u16b = |v: u16| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let u32b = |v: u32| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut tiff = Vec::new();
        tiff.extend_from_slice(if big_endian { b"MM" } else { b"II" });
        tiff.extend_from_slice(&u16b(42));
        tiff.extend_from_slice(&u32b(8));
        tiff.extend_from_slice(&u16b(1));
        tiff.extend_from_slice(&u16b(0x0112));
        tiff.extend_from_slice(&u16b(3));
        tiff.extend_from_slice(&u32b(1));
        tiff.extend_from_slice(&u16b(orientation));
        tiff.extend_from_slice(&[0, 0]);
        tiff.extend_from_slice(&u32b(0));
        tiff
    }

    #[test]
    fn exif_orientation_is_read_in_either_byte_order() {
        for big_endian in [true, false] {
            for orientation in 1..=8u16 {
                let mut app1 = b"Exif\0\0".to_vec();
                app1.extend(exif_tiff(orientation, big_endian));
                assert_eq!(exif_orientation(&app1), Some(orientation as u8));
            }
            let mut bad = b"Exif\0\0".to_vec();
            bad.extend(exif_tiff(9, big_endian));
            assert_eq!(exif_orientation(&bad), None);
        }
        assert_eq!(exif_orientation(b"Exif\0\0MM"), None);
        assert_eq!(exif_orientation(b"http://ns.adobe.com/xap/1.0/"), None);
    }

    /// Issue 35 §2: widening to RGBA in the decoded buffer itself gives each pixel as a copy
    /// into a new buffer would, for every layout the decoders give.
    #[test]
    fn pixels_widened_in_their_own_buffer_are_each_pixel_as_rgba() {
        let pixels = |channels: u8, data: Vec<u8>| Pixels {
            width: 3,
            height: 1,
            channels,
            data,
        };
        let cases: [(u8, Vec<u8>, Vec<u8>); 4] = [
            (
                1,
                vec![1, 2, 3],
                vec![1, 1, 1, 255, 2, 2, 2, 255, 3, 3, 3, 255],
            ),
            (
                2,
                vec![1, 9, 2, 8, 3, 7],
                vec![1, 1, 1, 9, 2, 2, 2, 8, 3, 3, 3, 7],
            ),
            (
                3,
                vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
                vec![1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255],
            ),
            (4, (1..=12).collect(), (1..=12).collect()),
        ];
        for (channels, data, rgba) in cases {
            let widened = Widened::of(pixels(channels, data));
            assert_eq!(widened.channels, channels);
            assert_eq!(
                (widened.rgba.channels, &widened.rgba.data),
                (4, &rgba),
                "{channels}"
            );
        }
    }

    #[test]
    fn every_orientation_turns_the_pixels_upright() {
        // Stored 3 x 2, one grey value a pixel: 1 2 3 / 4 5 6.
        let stored = || Pixels {
            width: 3,
            height: 2,
            channels: 1,
            data: vec![1, 2, 3, 4, 5, 6],
        };
        let expected: [(u8, (u32, u32), &[u8]); 8] = [
            (1, (3, 2), &[1, 2, 3, 4, 5, 6]),
            (2, (3, 2), &[3, 2, 1, 6, 5, 4]),
            (3, (3, 2), &[6, 5, 4, 3, 2, 1]),
            (4, (3, 2), &[4, 5, 6, 1, 2, 3]),
            (5, (2, 3), &[1, 4, 2, 5, 3, 6]),
            // A quarter turn clockwise: the stored left column, bottom first, is the top row.
            (6, (2, 3), &[4, 1, 5, 2, 6, 3]),
            (7, (2, 3), &[6, 3, 5, 2, 4, 1]),
            (8, (2, 3), &[3, 6, 2, 5, 1, 4]),
        ];
        for (orientation, size, data) in expected {
            let turned = upright(stored(), orientation);
            assert_eq!((turned.width, turned.height), size, "{orientation}");
            assert_eq!(turned.data, data, "{orientation}");
        }
    }

    #[test]
    fn a_sideways_photo_is_turned_upright() {
        // Stored 400 x 200, its left half red and right half blue; EXIF 6 (turn a quarter
        // clockwise to see it): seen 200 x 400, red on top.
        let mut rgb = Vec::with_capacity(400 * 200 * 3);
        for _y in 0..200 {
            for x in 0..400 {
                rgb.extend_from_slice(if x < 200 {
                    &[230, 20, 20]
                } else {
                    &[20, 20, 230]
                });
            }
        }
        let mut jpeg = Vec::new();
        let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, 90);
        encoder.add_exif_metadata(&exif_tiff(6, true)).unwrap();
        encoder
            .encode(&rgb, 400, 200, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        let part = fit(&jpeg, &ImageLimits::default()).unwrap();
        assert_eq!((part.source_width, part.source_height), (200, 400));
        assert_eq!((part.width, part.height), (200, 400));
        assert!(
            part.resized,
            "an image that is not upright is never handed over"
        );
        let back = redecode(&part);
        let pixel = |x: usize, y: usize| {
            let at = (y * back.width as usize + x) * usize::from(back.channels);
            [back.data[at], back.data[at + 1], back.data[at + 2]]
        };
        assert!(
            pixel(100, 50)[0] > 180 && pixel(100, 50)[2] < 80,
            "{:?}",
            pixel(100, 50)
        );
        assert!(
            pixel(100, 350)[2] > 180 && pixel(100, 350)[0] < 80,
            "{:?}",
            pixel(100, 350)
        );
    }

    #[test]
    fn grey_pngs_stay_grey_through_the_rgba_resizer() {
        // A horizontal ramp: after resizing, each pixel's grey is that of its place.
        let ramp = |channels: usize| -> Vec<u8> {
            let mut data = Vec::with_capacity(2000 * 1000 * channels);
            for _y in 0..1000 {
                for x in 0..2000u32 {
                    data.push((x * 255 / 1999) as u8);
                    if channels == 2 {
                        data.push(if x < 1000 { 0 } else { 255 });
                    }
                }
            }
            data
        };
        let limits = ImageLimits::default();
        for (color, channels) in [
            (png::ColorType::Grayscale, 1u8),
            (png::ColorType::GrayscaleAlpha, 2),
        ] {
            let png = png_of(2000, 1000, color, &ramp(usize::from(channels)));
            let part = fit(&png, &limits).unwrap();
            within(&part, &limits);
            let back = redecode(&part);
            assert_eq!(back.channels, channels, "{color:?}");
            let row = usize::from(channels) * part.width as usize;
            let middle = &back.data[(part.height as usize / 2) * row..][..row];
            let at = |x: usize| middle[x * usize::from(channels)];
            // Dark on the left, light on the right, rising in between.
            assert!(at(2) < 10, "{color:?}: {}", at(2));
            assert!(at(part.width as usize - 3) > 245, "{color:?}");
            assert!(at(part.width as usize / 4) < at(part.width as usize * 3 / 4));
            if channels == 2 {
                assert_eq!(middle[1], 0, "the left half stays transparent");
                assert_eq!(middle[row - 1], 255, "the right half stays opaque");
            }
        }
    }

    #[test]
    fn an_opaque_png_over_the_byte_limit_becomes_a_jpeg() {
        // Fits in pixels but not in bytes: noise at 1000 x 1000 is about 3 MB as PNG.
        let png = png_of(1000, 1000, png::ColorType::Rgb, &noise(1000, 1000, 3, 10));
        let limits = ImageLimits {
            max_base64_bytes: 1_000_000,
            ..ImageLimits::default()
        };
        let part = fit(&png, &limits).unwrap();
        assert_eq!(
            (part.format, part.width, part.height),
            (ImageFormat::Jpeg, 1000, 1000)
        );
        within(&part, &limits);
    }

    #[test]
    fn a_gif_becomes_its_first_frame_as_png() {
        let part = fit(&two_frame_gif(), &ImageLimits::default()).unwrap();
        assert_eq!(
            (part.format, part.width, part.height),
            (ImageFormat::Png, 4, 2)
        );
        assert_eq!(part.source_format, ImageFormat::Gif);
        assert!(part.resized);
        let back = redecode(&part);
        assert_eq!(back.channels, 3);
        assert_eq!(&back.data[..3], &[255, 0, 0]);
    }

    #[test]
    fn a_gif_frame_beside_the_screen_leaves_it_transparent() {
        // Found by the fuzz target: a 16-pixel-wide screen whose first frame starts at x = 4096.
        let mut out = Vec::new();
        {
            let mut encoder = gif::Encoder::new(&mut out, 16, 4, &[]).unwrap();
            let mut frame = gif::Frame::from_palette_pixels(2, 2, vec![0; 4], vec![9, 9, 9], None);
            frame.left = 4096;
            encoder.write_frame(&frame).unwrap();
        }
        let part = fit(&out, &ImageLimits::default()).unwrap();
        assert_eq!(
            (part.format, part.width, part.height),
            (ImageFormat::Png, 16, 4)
        );
        assert!(redecode(&part).data.iter().all(|&v| v == 0));
    }

    /// `png` with a chunk of `kind` and `data` inserted before its first IDAT.
    fn with_chunk(png: &[u8], kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let idat = memchr::memmem::find(png, b"IDAT").unwrap() - 4;
        let mut out = png[..idat].to_vec();
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(kind);
        out.extend(data);
        out.extend(crc32(&[&kind[..], data].concat()).to_be_bytes());
        out.extend(&png[idat..]);
        out
    }

    /// The CRC-32 a PNG chunk ends with, bit by bit.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn broken_png_palettes_are_corrupt() {
        // Found by the fuzz target: the png crate panics on these instead of refusing them.
        let indexed = png_of(2, 2, png::ColorType::Grayscale, &[0, 1, 1, 0]);
        let mut indexed = indexed.clone();
        // Grey to indexed in IHDR, with the chunk's CRC to match.
        indexed[25] = 3;
        let crc = crc32(&indexed[12..29]);
        indexed[29..33].copy_from_slice(&crc.to_be_bytes());
        let indexed = |plte: &[u8]| with_chunk(&indexed, b"PLTE", plte);
        // Limits that make the image decoded, not handed over.
        let decoded = ImageLimits {
            max_edge: 1,
            ..ImageLimits::default()
        };
        for plte in [&[1u8; 4][..], &[1; 771], &[]] {
            let got = fit(&indexed(plte), &decoded);
            assert!(
                matches!(got, Err(ImageError::Corrupt(_))),
                "{}: {got:?}",
                plte.len()
            );
        }
        let trns = with_chunk(&indexed(&[9; 6]), b"tRNS", &[0, 0, 0]);
        assert!(matches!(fit(&trns, &decoded), Err(ImageError::Corrupt(_))));
    }

    #[test]
    fn an_oversized_webp_is_downscaled() {
        let webp = webp_of(2400, 600, &noise(2400, 600, 3, 11));
        let limits = ImageLimits::default();
        let part = fit(&webp, &limits).unwrap();
        assert_eq!(part.source_format, ImageFormat::Webp);
        assert_eq!((part.width, part.height), (1568, 392));
        within(&part, &limits);
    }

    #[test]
    fn a_header_declaring_too_many_pixels_is_refused_before_decoding() {
        // A PNG of 100 000 x 100 000 in 70 bytes: its IHDR, and an IDAT of nothing.
        let mut png = PNG_SIGNATURE.to_vec();
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(100_000u32.to_be_bytes());
        ihdr.extend(100_000u32.to_be_bytes());
        ihdr.extend([8, 2, 0, 0, 0]);
        png.extend(13u32.to_be_bytes());
        png.extend(&ihdr);
        png.extend([0; 4]);
        png.extend(0u32.to_be_bytes());
        png.extend(b"IDAT\0\0\0\0");
        png.extend(0u32.to_be_bytes());
        png.extend(b"IEND\0\0\0\0");
        assert!(png.len() < 100);
        let started = std::time::Instant::now();
        let refused = fit(&png, &ImageLimits::default());
        assert!(started.elapsed() < std::time::Duration::from_millis(50));
        assert_eq!(
            refused,
            Err(ImageError::TooManyPixels {
                width: 100_000,
                height: 100_000,
                max: 50_000_000
            })
        );
        assert_eq!(dimensions(&png), Ok((ImageFormat::Png, 100_000, 100_000)));

        // A JPEG whose frame header says 60 000 x 60 000.
        let mut jpeg = jpeg_of(8, 8, &[0; 192]);
        let sof = memchr::memmem::find(&jpeg, &[0xFF, 0xC0]).unwrap();
        jpeg[sof + 5..sof + 9].copy_from_slice(&[0xEA, 0x60, 0xEA, 0x60]);
        assert!(matches!(
            fit(&jpeg, &ImageLimits::default()),
            Err(ImageError::TooManyPixels {
                width: 60_000,
                height: 60_000,
                ..
            })
        ));
    }

    /// Issue 35 §2: a progressive JPEG of 7000x7000 and 2,000 scans (some 300 KB) took 10-14 s
    /// of CPU to decode. Refused from its markers, before any decoding.
    #[test]
    fn a_jpeg_of_too_many_scans_for_its_size_is_refused_before_decoding() {
        let mut jpeg = jpeg_of(8, 8, &[0; 192]);
        let sof = memchr::memmem::find(&jpeg, &[0xFF, 0xC0]).unwrap();
        jpeg[sof + 5..sof + 9].copy_from_slice(&7000u16.to_be_bytes().repeat(2));
        let eoi = jpeg.len() - 2;
        // 2,000 scans: each an SOS segment and a byte of data, before the end of image.
        let scan = [
            0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00,
        ];
        let scans: Vec<u8> = scan
            .iter()
            .copied()
            .cycle()
            .take(scan.len() * 1999)
            .collect();
        jpeg.splice(eoi..eoi, scans);
        let started = std::time::Instant::now();
        let refused = fit(&jpeg, &ImageLimits::default());
        assert!(started.elapsed() < std::time::Duration::from_millis(50));
        assert_eq!(
            refused,
            Err(ImageError::TooManyScans {
                scans: 2000,
                width: 7000,
                height: 7000,
                max_scans: 65
            })
        );
        // The same scans at 100x100 are within the bound: handed to the decoder.
        jpeg[sof + 5..sof + 9].copy_from_slice(&100u16.to_be_bytes().repeat(2));
        let read = fit(&jpeg, &ImageLimits::default());
        assert!(
            !matches!(read, Err(ImageError::TooManyScans { .. })),
            "{read:?}"
        );
    }

    #[test]
    fn truncated_images_are_corrupt() {
        let png = png_of(400, 300, png::ColorType::Rgb, &noise(400, 300, 3, 12));
        let jpeg = jpeg_of(400, 300, &noise(400, 300, 3, 13));
        let webp = webp_of(400, 300, &noise(400, 300, 3, 14));
        let gif = two_frame_gif();
        for bytes in [&png, &jpeg, &webp, &gif] {
            for cut in [bytes.len() / 2, 40, 20, 12] {
                let got = fit(&bytes[..cut], &ImageLimits::default());
                assert!(matches!(got, Err(ImageError::Corrupt(_))), "{cut}: {got:?}");
            }
        }
    }

    #[test]
    fn a_byte_limit_too_small_shrinks_the_part_then_refuses() {
        let png = png_of(512, 512, png::ColorType::Rgba, &noise(512, 512, 4, 15));
        let limits = ImageLimits {
            max_base64_bytes: 40_000,
            ..ImageLimits::default()
        };
        let part = fit(&png, &limits).unwrap();
        assert!(
            part.width < 512 && part.width == part.height,
            "{}",
            part.width
        );
        within(&part, &limits);

        let tiny = ImageLimits {
            max_base64_bytes: 100,
            ..ImageLimits::default()
        };
        match fit(&png, &tiny) {
            Err(ImageError::CannotFit {
                max: 100,
                smallest,
                width,
                height,
            }) => {
                assert!(smallest > 100);
                assert!(width.max(height) >= MIN_EDGE && width.max(height) < MIN_EDGE * 4 / 3 + 1);
            }
            other => panic!("{other:?}"),
        }
    }
}
