//! Files that are not text, made into parts an AI model accepts: [`image`].
pub mod image;
