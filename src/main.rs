//! The `gendash` binary: everything it does is in the library (`gendash::cli`), so that tests
//! and benchmarks drive the same code.

fn main() -> std::process::ExitCode {
    gendash::cli::main()
}
