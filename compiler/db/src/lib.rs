//! The salsa database.
