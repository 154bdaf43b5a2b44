//! STUB until the PDF module lands (issue 22).
#![allow(missing_docs, unused)]
pub const MAX_PAGES_PER_CALL: u32 = 20;
pub fn sniff(bytes: &[u8]) -> bool {
    memchr::memmem::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_some()
}
pub struct PdfPage {
    pub number: u32,
    pub text: String,
}
pub struct PdfText {
    pub page_count: u32,
    pub pages: Vec<PdfPage>,
}
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PdfError {
    #[error("the PDF is encrypted")]
    Encrypted,
    #[error("{0}")]
    Corrupt(String),
    #[error("page {first} is past the last page ({page_count})")]
    PageOutOfRange { first: u32, page_count: u32 },
}
pub fn pdf_text(_bytes: &[u8], _first: u32, _last: u32) -> Result<PdfText, PdfError> {
    Err(PdfError::Corrupt("stub".into()))
}
