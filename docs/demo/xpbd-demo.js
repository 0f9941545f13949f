// The browser demo's driver: plain JavaScript over the wasm32 build of the
// xpbd C ABI (the same xpbd_* functions as libxpbd.a), no framework. Used by
// index.html and, under Node, by make-svg.js (the README's picture).
//
// Two scenes, every buffer in the module's linear memory, laid out as the
// C structs are on wasm32 (ILP32: pointers and size_t are 4 bytes):
//  - a 16 x 16 cloth (structural and shear links, and a dihedral bend on
//    every interior edge of its triangles, rest angle 0: it resists folding)
//    dropped on a sphere above a floor, one xpbd_world3_step per frame (a
//    world with a groups block for the bends and a colliders block for the
//    sphere and the floor, its memory sized by xpbd_world3_requirements);
//  - a 20-particle rope whose top particle (inverse mass 0) this driver moves
//    every substep; the driver runs the substep loop itself: predict,
//    xpbd_system3_begin_substep, xpbd_system3_iterate x iterations, update
//    the velocities. With `resetEveryIteration` it calls begin_substep before
//    every iterate, the wrong usage the library warns about (docs/spec.md):
//    λ then restarts at 0 each sweep and the rope stiffens as the iteration
//    budget rises, while with λ kept its stretch depends on α and h only.
//
// Only +, -, *, / and floor are used on the JavaScript side, so the state is
// bit-identical to docs/demo/native.c, the same driver in C: CI compares the
// page's stateHash() after 240 frames with the native program's.
(function (root) {
    'use strict';

    // Sizes and field offsets of the C structs on wasm32 (checked by
    // .ci/steps/83-demo.sh with clang --target=wasm32 against include/xpbd.h).
    const LINK = 40, LINK_COMPLIANCE = 16;
    const SYSTEM3 = 48, WORLD3 = 44, CONFIG3 = 96, SPHERE3 = 32, PLANE3 = 32, REQUIREMENTS = 32;
    const BEND = 40, BEND_COMPLIANCE = 24;
    // The feature blocks: a header (kind, size, next) then the block's fields.
    const COLLIDERS3 = 48, GROUPS3 = 84, BLOCK_HEADER = 12;
    const XPBD_BLOCK_COLLIDERS = 1, XPBD_BLOCK_GROUPS = 5;

    const DT = 1 / 60;         // s, one frame
    const GRAVITY = -9.81;     // m/s², along y
    const CLOTH_N = 16, CLOTH_SPACING = 0.05, CLOTH_MASS = 0.005, CLOTH_COMPLIANCE = 1e-7;
    const CLOTH_BEND_COMPLIANCE = 30;   // rad²/J: a hinge stiffness of 1/30 J/rad²
    const SPHERE = [0.0, 0.0, 0.0, 0.3];
    const FLOOR_Y = -0.45;
    const ROPE_N = 20, ROPE_SPACING = 0.05, ROPE_MASS = 0.05, ROPE_X = 0.95, ROPE_TOP = 0.6;
    const ROPE_DAMPING = 0.5;  // 1/s

    // cloth: false and fixedAttachment: true give the rope alone, hanging
    // still (make-svg.js); ropeDamping is in 1/s.
    const DEFAULTS = { compliance: 3e-3, substeps: 8, iterations: 4, resetEveryIteration: false,
                       cloth: true, fixedAttachment: false, ropeDamping: ROPE_DAMPING,
                       bendCompliance: CLOTH_BEND_COMPLIANCE };

    function align(n, a) { return Math.ceil(n / a) * a; }

    class Demo {
        constructor(instance, options) {
            const o = Object.assign({}, DEFAULTS, options || {});
            this.x = instance.exports;
            this.compliance = o.compliance;
            this.substeps = o.substeps;
            this.iterations = o.iterations;
            this.resetEveryIteration = o.resetEveryIteration;
            this.withCloth = o.cloth;
            this.fixedAttachment = o.fixedAttachment;
            this.ropeDamping = o.ropeDamping;
            this.bendCompliance = o.bendCompliance;
            this.frame = 0;
            this.lastStatus = 0;
            this.allocate();
            this.reset();
        }

        // One arena after __heap_base; the memory grows once, before any view.
        allocate() {
            let top = align(this.x.__heap_base.value, 16);
            const take = (bytes) => { const p = align(top, 8); top = p + bytes; return p; };
            const nc = CLOTH_N * CLOTH_N;
            this.clothLinkCount = this.x.xpbd_cloth_link_count(CLOTH_N, CLOTH_N, 1);
            this.clothBendCount = this.x.xpbd_bends_cloth_count(CLOTH_N, CLOTH_N);
            this.p = {
                cx: take(24 * nc), cv: take(24 * nc), cw: take(8 * nc),
                cl: take(LINK * this.clothLinkCount), cb: take(BEND * this.clothBendCount),
                groups: take(GROUPS3), colliders: take(COLLIDERS3),
                sphere: take(SPHERE3), plane: take(PLANE3),
                world: take(WORLD3), requirements: take(REQUIREMENTS), config: take(CONFIG3),
                rx: take(24 * ROPE_N), rw: take(8 * ROPE_N), rl: take(LINK * (ROPE_N - 1)),
                system: take(SYSTEM3), count: take(8), memory: 0, memorySize: 0,
            };
            const mem = this.x.memory;
            const grow = () => {
                if (top > mem.buffer.byteLength) mem.grow(Math.ceil((top - mem.buffer.byteLength) / 65536));
            };
            // The world's memory: as much as xpbd_world3_requirements asks for
            // the world with its blocks (written here once to be measured).
            grow();
            this.dv = new DataView(mem.buffer);
            this.writeWorld();
            this.check(this.x.xpbd_world3_requirements(this.p.world, this.p.requirements), 'xpbd_world3_requirements');
            this.p.memorySize = this.dv.getUint32(this.p.requirements, true);  // memory_size, bytes
            this.p.memory = take(this.p.memorySize);
            grow();
            const b = mem.buffer;
            this.clothX = new Float64Array(b, this.p.cx, 3 * nc);
            this.clothV = new Float64Array(b, this.p.cv, 3 * nc);
            this.clothW = new Float64Array(b, this.p.cw, nc);
            this.ropeX = new Float64Array(b, this.p.rx, 3 * ROPE_N);
            this.ropeW = new Float64Array(b, this.p.rw, ROPE_N);
            this.ropeV = new Float64Array(3 * ROPE_N);     // the driver's own
            this.ropePrev = new Float64Array(3 * ROPE_N);
            this.dv = new DataView(b);
        }

        // The world (particles, links, memory, the chain groups -> colliders)
        // and its two blocks, field by field as the C structs lay them out.
        writeWorld() {
            const dv = this.dv, p = this.p, nc = CLOTH_N * CLOTH_N;
            const u32 = (base, words) => words.forEach((v, k) => dv.setUint32(base + 4 * k, v, true));
            new Uint8Array(this.x.memory.buffer, p.groups, GROUPS3).fill(0);
            u32(p.groups, [XPBD_BLOCK_GROUPS, GROUPS3, p.colliders]);
            u32(p.groups + BLOCK_HEADER, [p.cb, this.clothBendCount]);    // groups.bends, bend_count
            u32(p.colliders, [XPBD_BLOCK_COLLIDERS, COLLIDERS3, 0,
                              p.plane, 1, p.sphere, 1, 0, 0, 0, 0, 0]);  // no capsule, box; default budget
            u32(p.world, [p.cx, p.cv, p.cw, nc, p.cl, this.clothLinkCount, p.memory, p.memorySize,
                          p.groups, 0, 0]);                               // ..., blocks, error_index, error_field
        }

        check(status, what) {
            this.lastStatus = status;
            if (status < 0) throw new Error(what + ': status ' + status);
        }

        reset() {
            const dv = this.dv, p = this.p, x = this.x;
            this.frame = 0;
            for (let r = 0; r < CLOTH_N; ++r) {
                for (let c = 0; c < CLOTH_N; ++c) {
                    const k = 3 * (r * CLOTH_N + c);
                    this.clothX[k] = -0.375 + c * CLOTH_SPACING + 0.01;
                    this.clothX[k + 1] = 0.5;
                    this.clothX[k + 2] = -0.375 + r * CLOTH_SPACING;
                }
            }
            this.clothV.fill(0);
            this.clothW.fill(1 / CLOTH_MASS);
            this.check(x.xpbd_build_cloth3(p.cx, CLOTH_N, CLOTH_N, 1, CLOTH_COMPLIANCE, p.cl,
                                           this.clothLinkCount, p.count), 'xpbd_build_cloth3');
            // Bends from the flat rest shape (rest angle 0); only the bends in the groups.
            this.check(x.xpbd_build_bends_cloth3(p.cx, CLOTH_N, CLOTH_N, this.bendCompliance, p.cb,
                                                 this.clothBendCount, p.count), 'xpbd_build_bends_cloth3');
            for (let k = 0; k < 4; ++k) dv.setFloat64(p.sphere + 8 * k, SPHERE[k], true);
            dv.setFloat64(p.plane, 0, true); dv.setFloat64(p.plane + 8, 1, true);
            dv.setFloat64(p.plane + 16, 0, true); dv.setFloat64(p.plane + 24, FLOOR_Y, true);
            this.writeWorld();

            for (let i = 0; i < ROPE_N; ++i) {
                this.ropeX[3 * i] = ROPE_X;
                this.ropeX[3 * i + 1] = ROPE_TOP - i * ROPE_SPACING;
                this.ropeX[3 * i + 2] = 0;
                this.ropeW[i] = i === 0 ? 0 : 1 / ROPE_MASS;
            }
            this.ropeV.fill(0);
            this.check(x.xpbd_build_rope3(p.rx, ROPE_N, this.compliance, p.rl, ROPE_N - 1, p.count),
                       'xpbd_build_rope3');
            const sys = [p.rx, p.rw, ROPE_N, p.rl, ROPE_N - 1, 0, 0];
            new Uint8Array(this.x.memory.buffer, p.system, SYSTEM3).fill(0);
            sys.forEach((v, k) => dv.setUint32(p.system + 4 * k, v, true));
            this.setCompliance(this.compliance);
        }

        // The cloth's bending compliance α (rad²/J), every bend; 0 is rigid.
        setBendCompliance(alpha) {
            this.bendCompliance = alpha;
            for (let k = 0; k < this.clothBendCount; ++k)
                this.dv.setFloat64(this.p.cb + BEND * k + BEND_COMPLIANCE, alpha, true);
        }

        setCompliance(alpha) {
            this.compliance = alpha;
            for (let k = 0; k < ROPE_N - 1; ++k)
                this.dv.setFloat64(this.p.rl + LINK * k + LINK_COMPLIANCE, alpha, true);
        }

        writeConfig() {
            const dv = this.dv, c = this.p.config;
            dv.setFloat64(c, 0, true); dv.setFloat64(c + 8, GRAVITY, true); dv.setFloat64(c + 16, 0, true);
            dv.setUint32(c + 24, this.substeps, true); dv.setUint32(c + 28, this.iterations, true);
            dv.setFloat64(c + 32, 0, true);       // tolerance: always the full budget
            dv.setFloat64(c + 40, 0.5, true);     // damping, 1/s
            dv.setFloat64(c + 48, 0.01, true);    // particle radius, m
            dv.setFloat64(c + 56, 0, true);       // rigid contacts
            dv.setFloat64(c + 64, 0.6, true);     // static friction
            dv.setFloat64(c + 72, 0.4, true);     // dynamic friction
            dv.setInt32(c + 80, 0, true);         // XPBD_ZERO_LENGTH_REJECT
            dv.setInt32(c + 84, 0, true);         // XPBD_CONTACT_OVERFLOW_REJECT
            dv.setFloat64(c + 88, 1, true);       // max distance scale (no skinned constraints here)
        }

        // The attachment's x at time t (s): a triangle wave, ±0.25 m, 4 s period.
        static attachmentX(t) {
            const u = t / 4 - Math.floor(t / 4);
            return ROPE_X + 0.25 * (u < 0.5 ? 4 * u - 1 : 3 - 4 * u);
        }

        step() {
            const x = this.x, p = this.p;
            this.writeConfig();
            if (this.withCloth)
                this.check(x.xpbd_world3_step(p.world, DT, p.config, 0), 'xpbd_world3_step');

            const S = this.substeps, h = DT / S, X = this.ropeX, V = this.ropeV, P = this.ropePrev;
            const damp = 1 - this.ropeDamping * h;
            for (let s = 0; s < S; ++s) {
                if (!this.fixedAttachment) X[0] = Demo.attachmentX((this.frame + (s + 1) / S) / 60);  // moved by the driver
                for (let i = 1; i < ROPE_N; ++i) {
                    V[3 * i + 1] += h * GRAVITY;
                    for (let c = 0; c < 3; ++c) {
                        P[3 * i + c] = X[3 * i + c];
                        X[3 * i + c] += h * V[3 * i + c];
                    }
                }
                if (!this.resetEveryIteration) {
                    this.check(x.xpbd_system3_begin_substep(p.system, h), 'begin_substep');  // λ = 0, once
                    for (let k = 0; k < this.iterations; ++k)
                        this.check(x.xpbd_system3_iterate(p.system, 0), 'iterate');        // λ kept
                } else {
                    for (let k = 0; k < this.iterations; ++k) {
                        this.check(x.xpbd_system3_begin_substep(p.system, h), 'begin_substep');  // the bug
                        this.check(x.xpbd_system3_iterate(p.system, 0), 'iterate');
                    }
                }
                for (let i = 1; i < ROPE_N; ++i)
                    for (let c = 0; c < 3; ++c)
                        V[3 * i + c] = (X[3 * i + c] - P[3 * i + c]) / h * damp;
            }
            this.frame += 1;
        }

        // Sum of the rope's link lengths (m); rest: (ROPE_N - 1) * spacing.
        ropeLength() {
            let sum = 0;
            for (let i = 0; i + 1 < ROPE_N; ++i) {
                const a = 3 * i, b = 3 * i + 3, X = this.ropeX;
                sum += Math.hypot(X[b] - X[a], X[b + 1] - X[a + 1], X[b + 2] - X[a + 2]);
            }
            return sum;
        }

        // FNV-1a 64 over the bytes of the cloth's, then the rope's positions.
        stateHash() {
            let hash = 0xcbf29ce484222325n;
            const mask = 0xffffffffffffffffn;
            for (const a of [this.clothX, this.ropeX]) {
                const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
                for (let k = 0; k < bytes.length; ++k)
                    hash = ((hash ^ BigInt(bytes[k])) * 0x100000001b3n) & mask;
            }
            return hash.toString(16).padStart(16, '0');
        }
    }

    Demo.DEFAULTS = DEFAULTS;
    Demo.ROPE_N = ROPE_N;
    Demo.ROPE_REST = (ROPE_N - 1) * ROPE_SPACING;
    Demo.CLOTH_N = CLOTH_N;
    Demo.SPHERE = SPHERE;
    Demo.FLOOR_Y = FLOOR_Y;
    Demo.ROPE_TOP = ROPE_TOP;

    if (typeof module !== 'undefined' && module.exports) module.exports = { Demo };
    else root.XpbdDemo = Demo;
})(typeof self !== 'undefined' ? self : this);
