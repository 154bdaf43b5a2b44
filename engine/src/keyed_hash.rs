//! The hash of every file version: XXH3-128 keyed with a secret drawn from the OS's random
//! source once per process, which no file's author knows (why keyed, and not BLAKE3:
//! [`crate::version`]). The line index's scan and the versions both hash with it, so this
//! is their own small module.

use std::sync::OnceLock;

use xxhash_rust::xxh3;

/// XXH3-128 of `bytes`, keyed with this process's secret.
pub(crate) fn of(bytes: &[u8]) -> u128 {
    xxh3::xxh3_128_with_secret(bytes, process_secret())
}

/// A hasher that streams bytes to the hash [`of`] gives them all at once.
pub(crate) fn hasher() -> xxh3::Xxh3 {
    xxh3::Xxh3::with_secret(*process_secret())
}

/// This process's XXH3 secret, drawn from the OS's random source on first use.
fn process_secret() -> &'static [u8; SECRET_LEN] {
    static SECRET: OnceLock<[u8; SECRET_LEN]> = OnceLock::new();
    SECRET.get_or_init(|| {
        let mut secret = [0u8; SECRET_LEN];
        if getrandom::fill(&mut secret).is_err() {
            secret = secret_without_random_source();
        }
        secret
    })
}

/// The length of XXH3's default secret; any length from 136 bytes up is allowed.
const SECRET_LEN: usize = 192;

/// A secret for a process whose OS gives no random bytes (no such OS is a target): the
/// process's id, the time and addresses spread over the secret's length. Weaker than a
/// random one, but never the public default.
fn secret_without_random_source() -> [u8; SECRET_LEN] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let local = 0u8;
    let seed = (u128::from(std::process::id()) << 64)
        ^ nanos
        ^ (std::ptr::from_ref(&local) as usize as u128) << 32;
    let mut secret = [0u8; SECRET_LEN];
    for (index, chunk) in secret.chunks_mut(16).enumerate() {
        let word = xxh3::xxh3_128_with_seed(&seed.to_le_bytes(), index as u64);
        chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
    }
    secret
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_xxh3_128_keyed_with_a_secret_that_is_not_the_default() {
        let secret = process_secret();
        assert_eq!(of(b"abcd"), xxh3::xxh3_128_with_secret(b"abcd", secret));
        assert_ne!(of(b"abcd"), xxh3::xxh3_128(b"abcd"));
        let mut streamed = hasher();
        streamed.update(b"ab");
        streamed.update(b"cd");
        assert_eq!(streamed.digest128(), of(b"abcd"));
        let fallback = secret_without_random_source();
        assert_ne!(&fallback[..], &secret[..]);
        assert_ne!(
            xxh3::xxh3_128_with_secret(b"abcd", &fallback),
            xxh3::xxh3_128(b"abcd")
        );
    }
}
