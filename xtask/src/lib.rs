//! The importer's library half: the parser of the seed pages (`shared/seeds`), with its tests
//! in `xtask/tests/`. The commands are in `main.rs`.

pub mod seeds;
