//! Generated inputs: property tests, and the fuzz targets' kept inputs replayed.

mod fuzz_corpora;
mod invariants;
