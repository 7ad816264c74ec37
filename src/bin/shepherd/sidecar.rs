//! `shepherd sidecar`: validate the sidecar's config, or run the sidecar.

use std::io::IsTerminal;

pub fn sidecar(path: &std::path::Path, check: bool, log: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let config = shepherd::sidecar::config::SidecarConfig::parse(&text)
        .map_err(|e| e.to_string().replacen("invalid Shepherd config", "invalid sidecar config", 1))?;
    if check {
        println!(
            "sidecar config OK: listen {}, RM {}, engine {}",
            config.server.listen,
            config.rm.addresses.join(", "),
            if config.control.address.is_empty() { "not linked" } else { &config.control.address }
        );
        return Ok(());
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(log))
        .map_err(|e| format!("--log {log}: {e}"))?;
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(std::io::stderr().is_terminal()).with_writer(std::io::stderr).init();
    shepherd::sidecar::run(config)
}
