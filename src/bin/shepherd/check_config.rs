//! `shepherd check-config`: validate a Shepherd config and print its summary.

pub fn check_config(path: &std::path::Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let c = shepherd::Config::parse(&text).map_err(|e| e.to_string())?;
    // Building the engine builds every plugin the config names.
    shepherd::Engine::with_config(c.clone()).map_err(|e| e.to_string())?;
    print!("{}", shepherd::config::summary::summary(&c));
    Ok(())
}
