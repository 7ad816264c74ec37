//! The control channel's shared secret: read from a file the RM and the
//! sidecar can both read, compared in constant time.

use std::path::Path;

/// Shortest secret accepted: 16 bytes (e.g. `openssl rand -hex 16` gives 32).
pub const MIN_SECRET_BYTES: usize = 16;

#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// The file's first line, surrounding whitespace trimmed. `key` names
    /// the config key in errors.
    pub fn read(path: &Path, key: &str) -> Result<Secret, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{key} = {}: {e}", path.display()))?;
        let line = text.lines().next().unwrap_or("").trim();
        if line.len() < MIN_SECRET_BYTES {
            return Err(format!("{key} = {}: the secret must be at least {MIN_SECRET_BYTES} bytes (found {})", path.display(), line.len()));
        }
        Ok(Secret(line.as_bytes().to_vec()))
    }

    pub fn from_text(s: &str) -> Secret {
        Secret(s.as_bytes().to_vec())
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("")
    }

    /// Whether `offered` equals the secret. Takes the same time whatever
    /// prefix matches, so response timing does not reveal the secret byte by
    /// byte (only its length, which is not secret).
    pub fn matches(&self, offered: &str) -> bool {
        let a = &self.0;
        let b = offered.as_bytes();
        let mut diff = (a.len() ^ b.len()) as u64;
        for (i, x) in a.iter().enumerate() {
            let y = b.get(i).copied().unwrap_or(0);
            diff |= (x ^ y) as u64;
        }
        std::hint::black_box(diff) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_whole_secret() {
        let s = Secret::from_text("0123456789abcdef");
        assert!(s.matches("0123456789abcdef"));
        assert!(!s.matches("0123456789abcdeF"));
        assert!(!s.matches("0123456789abcde"));
        assert!(!s.matches("0123456789abcdef0"));
        assert!(!s.matches(""));
    }

    #[test]
    fn short_or_missing_files_are_refused_by_key() {
        let dir = std::env::temp_dir().join(format!("shepherd-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let short = dir.join("short");
        std::fs::write(&short, "abc\n").unwrap();
        let e = Secret::read(&short, "control.secret_file").unwrap_err();
        assert!(e.contains("control.secret_file") && e.contains("at least 16"), "{e}");
        let e = Secret::read(&dir.join("missing"), "control.secret_file").unwrap_err();
        assert!(e.contains("missing"), "{e}");
        let ok = dir.join("ok");
        std::fs::write(&ok, "  0123456789abcdef  \nignored\n").unwrap();
        assert!(Secret::read(&ok, "k").unwrap().matches("0123456789abcdef"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
