//! What a file's status (`fstat`) tells of its version: the fields that identify one, and
//! whether its last change is old enough that a later write must move its times. Below the
//! sandbox, the line index and the ledger, which all ask it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::Stat;

/// The longest tick of the clocks file systems stamp changes with (Linux's coarse clock
/// advances every 1 to 10 ms), with room to spare.
pub(crate) const TIMESTAMP_TICK: Duration = Duration::from_millis(20);

/// Sleeps until the change time of `stat` is more than [`TIMESTAMP_TICK`] old (at most
/// that long, even for a change time in the future).
pub(crate) fn wait_until_settled(stat: &Stat) {
    let age = change_age(stat);
    if age <= TIMESTAMP_TICK {
        std::thread::sleep(TIMESTAMP_TICK - age + Duration::from_millis(1));
    }
}

/// Whether the last change of the file whose status is `stat` is more than
/// [`TIMESTAMP_TICK`] old: then any later write moves its times.
pub fn settled(stat: &Stat) -> bool {
    change_age(stat) > TIMESTAMP_TICK
}

/// How long ago the file whose status is `stat` last changed (zero for a time ahead).
fn change_age(stat: &Stat) -> Duration {
    let changed = UNIX_EPOCH
        .checked_add(Duration::new(
            u64::try_from(stat.st_ctime).unwrap_or(0),
            u32::try_from(stat.st_ctime_nsec).unwrap_or(0),
        ))
        .unwrap_or(UNIX_EPOCH);
    SystemTime::now()
        .duration_since(changed)
        .unwrap_or(Duration::ZERO)
}

/// Whether two statuses are of the same version of the same file, as far as a status
/// tells: same device, inode, length, modification and change times (to the nanosecond).
pub fn same_version(a: &Stat, b: &Stat) -> bool {
    identity(a) == identity(b)
}

/// Device, inode, length, modification and change times of a status.
#[allow(clippy::unnecessary_cast)] // The fields' types differ between platforms.
pub fn identity(stat: &Stat) -> [i128; 7] {
    [
        stat.st_dev as i128,
        stat.st_ino as i128,
        stat.st_size as i128,
        stat.st_mtime as i128,
        stat.st_mtime_nsec as i128,
        stat.st_ctime as i128,
        stat.st_ctime_nsec as i128,
    ]
}
