//! STUB until the image module lands (issue 22).
#![allow(missing_docs, unused)]
use base64::Engine;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
}
impl ImageFormat {
    pub const fn mime_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
        }
    }
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(b"\xFF\xD8\xFF") {
            Some(ImageFormat::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageFormat::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageFormat::Webp)
        } else {
            None
        }
    }
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    pub max_edge: u32,
    pub max_pixels: u64,
    pub max_base64_bytes: usize,
    pub max_source_pixels: u64,
}
impl Default for ImageLimits {
    fn default() -> Self {
        ImageLimits {
            max_edge: 1568,
            max_pixels: 1_150_000,
            max_base64_bytes: 5 * 1024 * 1024,
            max_source_pixels: 100_000_000,
        }
    }
}
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FittedImage {
    pub format: ImageFormat,
    pub data: String,
    pub width: u32,
    pub height: u32,
    pub source_format: ImageFormat,
    pub source_width: u32,
    pub source_height: u32,
    pub source_bytes: u64,
    pub resized: bool,
}
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImageError {
    #[error("not a PNG, JPEG, GIF or WebP image")]
    NotAnImage,
    #[error("the image declares {width}x{height} pixels, more than the {max} decoded")]
    TooManyPixels { width: u32, height: u32, max: u64 },
    #[error("{0}")]
    Corrupt(String),
    #[error("the image cannot be made small enough")]
    CannotFit {},
}
pub fn fit(bytes: &[u8], _limits: &ImageLimits) -> Result<FittedImage, ImageError> {
    let format = ImageFormat::sniff(bytes).ok_or(ImageError::NotAnImage)?;
    Ok(FittedImage {
        format,
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
        width: 1,
        height: 1,
        source_format: format,
        source_width: 1,
        source_height: 1,
        source_bytes: bytes.len() as u64,
        resized: false,
    })
}
