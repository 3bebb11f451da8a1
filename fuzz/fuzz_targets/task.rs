#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| gendash::testing::fuzzing::task(data));
