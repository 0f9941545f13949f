/* A hanging rope through the 1D API as bare-metal C on a Cortex-M4F: linked
 * against the thumbv7em-none-eabihf libxpbd.a with no C library at all, it
 * prints through semihosting and ends QEMU with its status (0 = ok). No ARM
 * GCC needed: clang compiles, Rust's rust-lld links. From the repository root:
 *
 *   cargo c-lib --target thumbv7em-none-eabihf
 *   clang --target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfloat-abi=hard \
 *     -mfpu=fpv4-sp-d16 -ffreestanding -fno-builtin -nostdlib -O2 -Iinclude \
 *     -c examples/c-firmware/rope_m4.c -o target/rope_m4.o
 *   $(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld \
 *     -flavor gnu -T examples/c-firmware/link.ld --gc-sections target/rope_m4.o \
 *     target/thumbv7em-none-eabihf/release/libxpbd.a -o target/rope_m4.elf
 *   qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
 *     -semihosting-config enable=on,target=native -kernel target/rope_m4.elf
 *
 * With arm-none-eabi-gcc and newlib instead, drop the mem* functions below
 * and link with -Wl,--gc-sections. The archive has its own panic handler (a
 * spin loop that no exported function can reach) and Rust's float helpers. */
#include <stddef.h>
#include <stdint.h>

#include "xpbd.h"

/* ---- What libxpbd.a needs from a C library (docs/c-api.md, "Building and linking"). ---- */
void *memcpy(void *d, const void *s, size_t n) {
    unsigned char *dp = d;
    const unsigned char *sp = s;
    while (n--) *dp++ = *sp++;
    return d;
}
void *memmove(void *d, const void *s, size_t n) {
    unsigned char *dp = d;
    const unsigned char *sp = s;
    if (dp < sp) {
        while (n--) *dp++ = *sp++;
    } else {
        while (n--) dp[n] = sp[n];
    }
    return d;
}
void *memset(void *d, int c, size_t n) {
    unsigned char *dp = d;
    while (n--) *dp++ = (unsigned char)c;
    return d;
}
int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *ap = a, *bp = b;
    for (; n; --n, ++ap, ++bp) {
        if (*ap != *bp) return *ap - *bp;
    }
    return 0;
}
int bcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }

/* ---- Semihosting (ARM): print a string, exit with a status. ---- */
static int semihost(int op, const void *arg) {
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}
static void put(const char *s) { semihost(0x04, s); } /* SYS_WRITE0 */
static void put_int(long v) {
    char buf[24], *p = buf + sizeof buf - 1;
    int neg = v < 0;
    unsigned long u = neg ? 0ul - (unsigned long)v : (unsigned long)v;
    *p = '\0';
    do { *--p = (char)('0' + u % 10); u /= 10; } while (u);
    if (neg) *--p = '-';
    put(p);
}
static void exit_qemu(int ok) {
    /* SYS_EXIT_EXTENDED-free form: ADP_Stopped_ApplicationExit (0x20026)
     * is exit status 0; anything else (here RunTimeErrorUnknown) is 1. */
    semihost(0x18, (const void *)(uintptr_t)(ok ? 0x20026 : 0x20023));
    for (;;) {}
}

/* ---- The rope: 1D (a chain on a line), xpbd_distance_* per link. ---- */
#define N 8
#define SUBSTEPS 4
#define ITERATIONS 8
static const double gravity = 9.81, mass = 0.1, rest = 0.1, compliance = 1e-3, damping = 2.0;
static double y[N], y_prev[N], v[N], w[N];
static XpbdDistanceConstraint link[N - 1];

static int check(XpbdStatus s) {
    if (s == XPBD_STATUS_OK || s == XPBD_STATUS_SKIPPED) return 1;
    put("xpbd error: ");
    put(xpbd_status_str(s));
    put("\n");
    return 0;
}

static int frame(void) {
    const double h = (1.0 / 60.0) / SUBSTEPS;
    int s, it, i;
    for (s = 0; s < SUBSTEPS; ++s) {
        for (i = 0; i < N; ++i) {
            if (w[i] > 0.0) v[i] += gravity * h;
            y_prev[i] = y[i];
            y[i] += v[i] * h;
        }
        for (i = 0; i < N - 1; ++i) {
            if (!check(xpbd_distance_begin_substep(&link[i]))) return 0;
        }
        for (it = 0; it < ITERATIONS; ++it) {
            for (i = 0; i < N - 1; ++i) {
                if (!check(xpbd_distance_solve(&link[i], &y[i], &y[i + 1], w[i], w[i + 1], rest,
                                               compliance, h))) return 0;
            }
        }
        for (i = 0; i < N; ++i) v[i] = (y[i] - y_prev[i]) / h * (1.0 - damping * h);
    }
    return 1;
}

int main(void) {
    int i, ok = 1;
    for (i = 0; i < N; ++i) {
        y[i] = i * rest;
        w[i] = i == 0 ? 0.0 : 1.0 / mass;
    }
    if (xpbd_version() != XPBD_VERSION_NUMBER) exit_qemu(0);
    for (i = 0; i < 600; ++i) {
        if (!frame()) exit_qemu(0);
    }
    put("Cortex-M4F C rope, stretch per link (um, expected):\n");
    for (i = 0; i < N - 1; ++i) {
        double got = y[i + 1] - y[i] - rest, want = compliance * mass * gravity * (N - 1 - i);
        double err = got - want;
        put("  ");
        put_int((long)(got * 1e6 + 0.5));
        put(" ");
        put_int((long)(want * 1e6 + 0.5));
        put("\n");
        ok = ok && (err < 0 ? -err : err) <= 0.01 * want;
    }
    put(ok ? "ok\n" : "MISMATCH\n");
    exit_qemu(ok);
    return 0;
}

/* ---- Start-up: vector table, .data/.bss, FPU on, main. ---- */
extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _stack_top;
void reset_handler(void);
void fault_handler(void);
/* The first 16 entries of the vector table: initial stack pointer, reset,
 * then NMI, HardFault, MemManage, BusFault, UsageFault (the rest unused). */
__attribute__((section(".vectors"), used)) static const struct {
    const uint32_t *stack_top;
    void (*handler[15])(void);
} vectors = {&_stack_top, {reset_handler, fault_handler, fault_handler, fault_handler,
                           fault_handler, fault_handler}};
void fault_handler(void) {
    put("fault\n");
    exit_qemu(0);
}
void reset_handler(void) {
    uint32_t *src = &_sidata, *dst = &_sdata;
    while (dst < &_edata) *dst++ = *src++;
    for (dst = &_sbss; dst < &_ebss;) *dst++ = 0;
    /* CPACR: full access to CP10 and CP11, the FPU (hard-float code needs it). */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb");
    main();
}
