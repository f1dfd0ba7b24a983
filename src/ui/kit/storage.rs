//! localStorage, behind `Result`s: storage can be disabled (privacy settings,
//! sandboxed iframes), full, or hold someone else's data. Keys are versioned
//! (`brrr.<what>.v<N>`); a value this version can't read is ignored, not deleted.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    Unavailable,
    WriteRefused,
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StorageError::Unavailable => {
                write!(f, "this browser does not let the page store anything")
            }
            StorageError::WriteRefused => write!(
                f,
                "the browser refused to store it (storage full or disabled)"
            ),
        }
    }
}

fn storage() -> Result<web_sys::Storage, StorageError> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or(StorageError::Unavailable)
}

pub fn get(key: &str) -> Result<Option<String>, StorageError> {
    storage()?
        .get_item(key)
        .map_err(|_| StorageError::Unavailable)
}

pub fn set(key: &str, value: &str) -> Result<(), StorageError> {
    storage()?
        .set_item(key, value)
        .map_err(|_| StorageError::WriteRefused)
}
