//! The page shell, the top layer: the page and embed assembly around the
//! widgets. Starting the page and mounting its parts ([`start`]), embed mode
//! ([`embed`]), the frame each widget sits in ([`frame`], [`share`]), the state
//! in the URL ([`store`]), the theme, the help panel, the URL's notices, the
//! panic banner and offline support.

pub mod embed;
pub mod frame;
pub mod help;
pub mod nearby;
pub mod notices;
pub mod offline;
pub mod panic;
pub mod share;
pub mod start;
pub mod store;
pub mod theme;
