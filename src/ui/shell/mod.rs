//! The page shell: what surrounds the widgets. Starting the page and mounting
//! its parts ([`start`]), embed mode ([`embed`]), the frame each widget sits in
//! ([`frame`], [`share`]), the state in the URL ([`store`]), the tasks left for
//! later ([`later`]), the theme, the help panel, the URL's notices, the panic
//! banner, offline support, the on-demand modules ([`on_demand`]) and the
//! browser's storage and downloads.

pub mod download;
pub mod embed;
pub mod frame;
pub mod help;
pub mod later;
pub mod notices;
pub mod offline;
pub mod on_demand;
pub mod panic;
pub mod share;
pub mod start;
pub mod storage;
pub mod store;
pub mod theme;
