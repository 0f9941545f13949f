//! What every image shares: the panic handler (never reached: the images
//! contain no panic path, which step 75 checks) and an opaque sink.

use core::hint::black_box;
use core::sync::atomic::{AtomicU32, Ordering};

/// Results go here so the optimiser cannot drop the calls.
pub static SINK: AtomicU32 = AtomicU32::new(0);

/// Stores `x` where the optimiser cannot see it unused.
#[inline(always)]
pub fn sink(x: u32) {
    SINK.fetch_xor(black_box(x), Ordering::Relaxed);
}

/// An opaque value: stops constant propagation into the calls.
#[inline(always)]
pub fn opaque<T>(x: T) -> T {
    black_box(x)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
