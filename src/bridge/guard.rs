//! The single wrapper every JNI entry point goes through (the pattern of
//! DataFusion Comet's `try_unwrap_or_throw`): run the body, and turn an error
//! or a panic into a pending `ShepherdEngineException` on the Java side,
//! returning a neutral value. A Rust fault therefore never unwinds into the
//! JVM and never takes the ResourceManager down.

use jni::JNIEnv;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub const EXCEPTION_CLASS: &str = "org/shepherd/yarn/engine/ShepherdEngineException";

pub fn throw(env: &mut JNIEnv, message: &str) {
    // If an exception is already pending (e.g. from a failed JNI call inside
    // the body), keep that one: it carries the more precise cause.
    if env.exception_check().unwrap_or(false) {
        return;
    }
    if env.throw_new(EXCEPTION_CLASS, message).is_err() {
        // The class could not be found (a JVM without the shim's classes):
        // clear the NoClassDefFoundError that lookup left pending — JNI
        // calls with an exception pending are undefined — and throw a JDK
        // class carrying the same message.
        let _ = env.exception_clear();
        let _ = env.throw_new("java/lang/RuntimeException", message);
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Run `body`; on `Err` or panic throw a Java exception and return `neutral`.
pub fn guarded<'local, T, E, F>(env: &mut JNIEnv<'local>, neutral: T, body: F) -> T
where
    E: std::fmt::Display,
    F: FnOnce(&mut JNIEnv<'local>) -> Result<T, E>,
{
    match catch_unwind(AssertUnwindSafe(|| body(env))) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            throw(env, &e.to_string());
            neutral
        }
        Err(payload) => {
            let msg = format!("Shepherd engine panicked: {}", panic_message(payload.as_ref()));
            tracing::error!("{msg}");
            throw(env, &msg);
            neutral
        }
    }
}
