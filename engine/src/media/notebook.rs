//! STUB until the notebook module lands (issue 22).
#![allow(missing_docs, unused)]
pub fn sniff(bytes: &[u8]) -> bool {
    false
}
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotebookError {
    #[error("{0}")]
    Malformed(String),
    #[error("nbformat {0} is not supported")]
    UnsupportedVersion(u64),
    #[error("cell {first} is past the last cell ({cell_count})")]
    CellOutOfRange { first: u32, cell_count: u32 },
}
pub enum NotebookPart {
    Text(String),
    Image { mime_type: String, bytes: Vec<u8> },
}
pub struct NotebookWindow {
    pub cell_count: u32,
    pub first: u32,
    pub last: u32,
    pub parts: Vec<NotebookPart>,
    pub images_left_out: u32,
    pub language: Option<String>,
}
pub struct NotebookBudget {
    pub max_text_bytes: usize,
    pub max_output_bytes: usize,
    pub max_images: u32,
}
impl Default for NotebookBudget {
    fn default() -> Self {
        NotebookBudget {
            max_text_bytes: 64 * 1024,
            max_output_bytes: 2000,
            max_images: 4,
        }
    }
}
pub fn notebook_window(
    _bytes: &[u8],
    _first: u32,
    _last: Option<u32>,
    _budget: &NotebookBudget,
) -> Result<NotebookWindow, NotebookError> {
    Err(NotebookError::Malformed("stub".into()))
}
