//! Files that are not plain text, turned into what a model can read.

pub mod notebook;
pub mod pdf;
