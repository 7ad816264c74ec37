//! The allocator of everything Rust allocates, in the RM's JNI library, the
//! simulator and the CLI alike: mimalloc, unless built without the
//! `mimalloc` feature (on by default).
//!
//! Why: a decision allocates many small, short-lived vectors (Carbyne
//! packs a job's stages forward and in reverse at each of its events),
//! and glibc's malloc and free were about 15 % of a Carbyne heartbeat's
//! instructions (`scripts/heartbeat-instructions.sh carbyne`). Only Rust
//! code frees what Rust allocated (JNI hands Java copies), so inside the RM
//! the JVM's allocator and this one never meet.
//!
//! Built with `local_dynamic_tls` because the RM loads the library with
//! `dlopen` (`System.load`), where mimalloc's default TLS model can fail to
//! load; and from mimalloc's v2 line, which counted slightly fewer
//! instructions per heartbeat than v3 here.
//!
//! Compare with `cargo build --release --no-default-features` (glibc).

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
