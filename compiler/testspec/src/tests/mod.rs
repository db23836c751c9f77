//! Unit tests: one minimal fixture per syntax form.
