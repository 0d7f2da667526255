//! When to send a failed request again: exponential backoff with full jitter, never
//! sooner than the server's `Retry-After`.

use std::time::{Duration, SystemTime};

#[derive(Clone, Debug)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    pub base_delay: Duration,
    /// The longest wait between attempts, `Retry-After` included.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before attempt `failed + 1`, after `failed` attempts failed.
    pub fn delay(&self, failed: u32, retry_after: Option<Duration>) -> Duration {
        let exponent = failed.saturating_sub(1).min(20);
        let ceiling = self
            .base_delay
            .saturating_mul(1 << exponent)
            .min(self.max_delay);
        // Full jitter: clients that failed together do not retry together.
        let jittered = ceiling.mul_f64(fastrand::f64());
        jittered
            .max(retry_after.unwrap_or_default())
            .min(self.max_delay)
    }
}

/// A `Retry-After` value: whole seconds or an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(30))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn delays_grow_are_capped_and_honor_retry_after() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
        };
        for failed in 1..10 {
            let ceiling = Duration::from_millis(100 << (failed - 1)).min(policy.max_delay);
            assert!(policy.delay(failed, None) <= ceiling);
        }
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(1))),
            Duration::from_secs(1)
        );
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(99))),
            Duration::from_secs(2)
        );
    }
}
