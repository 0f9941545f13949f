// The browser demo's driver: plain JavaScript over the wasm32 build of the
// xpbd C ABI (the same xpbd_* functions as libxpbd.a), no framework. Used by
// index.html and, under Node, by make-svg.js (the README's picture).
//
// Three scenes, every buffer in the module's linear memory, laid out as the
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
//    budget rises, while with λ kept its stretch depends on α and h only;
//  - a 10 x 14 cape (structural, shear and bend constraints) on a body, in
//    wind: its own world with a wind block (one XpbdAeroTriangle per
//    triangle of the grid), a groups block (the bends) and a colliders
//    block (the body: a torso capsule and a head, moving capsules swept over
//    the frame), one xpbd_world3_step per frame with its own substeps and
//    iterations (not the sliders'); the wind blows in gusts. The top row is
//    kinematic (inverse mass 0): each frame this driver gives those
//    particles the velocity that carries them with the body's shoulders
//    over the frame (the step moves a kinematic particle by h v a substep).
//    The body follows a scripted path (a function of the frame number, only
//    + - * / floor) unless the page's user drags it.
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
    const COLLIDERS3 = 72, GROUPS3 = 84, BLOCK_HEADER = 12;
    const XPBD_BLOCK_COLLIDERS = 1, XPBD_BLOCK_GROUPS = 5, XPBD_BLOCK_WIND = 6;
    const CAPSULE3 = 120, WIND3 = 56, AERO_TRIANGLE = 32;

    const DT = 1 / 60;         // s, one frame
    const GRAVITY = -9.81;     // m/s², along y
    const CLOTH_N = 16, CLOTH_SPACING = 0.05, CLOTH_MASS = 0.005, CLOTH_COMPLIANCE = 1e-7;
    const CLOTH_BEND_COMPLIANCE = 30;   // rad²/J: a hinge stiffness of 1/30 J/rad²
    const SPHERE = [0.0, 0.0, 0.0, 0.3];
    const FLOOR_Y = -0.45;
    const ROPE_N = 20, ROPE_SPACING = 0.05, ROPE_MASS = 0.05, ROPE_X = 0.95, ROPE_TOP = 0.6;
    const ROPE_DAMPING = 0.5;  // 1/s
    // The cape: CAPE_ROWS rows of CAPE_COLS particles, row 0 (kinematic)
    // across the shoulders along z, hanging down (-y) behind the body (-x);
    // spacing in m, particle mass in kg, link compliance in m/N.
    const CAPE_COLS = 10, CAPE_ROWS = 14, CAPE_SPACING = 0.04, CAPE_MASS = 0.002, CAPE_COMPLIANCE = 1e-7;
    const CAPE_BEND_COMPLIANCE = 1000;  // rad²/J
    // Its own step settings (not the sliders'): 16 substeps keep the links
    // from the kinematic top row within a few % in the wind.
    const CAPE_SUBSTEPS = 16, CAPE_ITERATIONS = 4;
    const CAPE_GAP = 0.02;              // m, between the torso's back and the cape's top row
    const CAPE_WRAP = 2;                // 1/m: the top row bends forward by CAPE_WRAP·z² round the shoulders
    // The body: a vertical torso capsule (centre, ± half height, radius) and a
    // head (a capsule with no axis: a sphere) above it, both moving colliders.
    const BODY_RADIUS = 0.11, BODY_HALF_HEIGHT = 0.16, HEAD_RADIUS = 0.09, HEAD_Y = 0.34;  // m
    const BODY_FRICTION = [0.6, 0.4];   // static, dynamic
    // The body's scripted path: sways along x by ±BODY_SWAY (m) every
    // BODY_SWAY_PERIOD (s) and bobs by ±BODY_BOB (m) every BODY_BOB_PERIOD (s),
    // a piecewise-quadratic wave (see wave()). Dragged, the body follows the
    // pointer at BODY_MAX_SPEED at most (m/s).
    const BODY_SWAY = 0.3, BODY_SWAY_PERIOD = 4, BODY_BOB = 0.02, BODY_BOB_PERIOD = 0.8;
    const BODY_MAX_SPEED = 3;
    // The wind: WIND_SPEED (m/s) along one of WIND_DIRECTIONS (unit vectors in
    // the x-z plane, every 45°) in gusts of ±WIND_GUST of it every
    // WIND_GUST_PERIOD (s), air, the coefficients of
    // xpbd_aero_triangle_default (drag 1.2, lift 0.1).
    const WIND_SPEED = 6, WIND_GUST = 0.3, WIND_GUST_PERIOD = 1.5;
    const S2 = 0.7071067811865476;
    const WIND_DIRECTIONS = [[-1, 0], [-S2, -S2], [0, -1], [S2, -S2], [1, 0], [S2, S2], [0, 1], [-S2, S2]];
    const AIR_DENSITY = 1.225, AERO_DRAG = 1.2, AERO_LIFT = 0.1;

    // cloth: false and fixedAttachment: true give the rope alone, hanging
    // still (make-svg.js); ropeDamping is in 1/s.
    // cape: false leaves the cape scene still (make-svg.js).
    const DEFAULTS = { compliance: 3e-3, substeps: 8, iterations: 4, resetEveryIteration: false,
                       cloth: true, fixedAttachment: false, ropeDamping: ROPE_DAMPING,
                       bendCompliance: CLOTH_BEND_COMPLIANCE, cape: true,
                       windSpeed: WIND_SPEED, windDirection: 0 };

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
            this.withCape = o.cape;
            this.windSpeed = o.windSpeed;            // m/s
            this.windDirection = o.windDirection;    // index into WIND_DIRECTIONS
            this.bodyScripted = true;                // false: the body goes to dragTarget
            this.dragTarget = [0, 0];                // m, x and y
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
                world: take(WORLD3), requirements: take(REQUIREMENTS), config: take(CONFIG3), kconfig: take(CONFIG3),
                rx: take(24 * ROPE_N), rw: take(8 * ROPE_N), rl: take(LINK * (ROPE_N - 1)),
                system: take(SYSTEM3), count: take(8), memory: 0, memorySize: 0,
            };
            const nk = CAPE_COLS * CAPE_ROWS;
            this.capeLinkCount = this.x.xpbd_cloth_link_count(CAPE_ROWS, CAPE_COLS, 1);
            this.capeBendCount = this.x.xpbd_bends_cloth_count(CAPE_ROWS, CAPE_COLS);
            this.capeTriangleCount = 2 * (CAPE_ROWS - 1) * (CAPE_COLS - 1);
            Object.assign(this.p, {
                kx: take(24 * nk), kv: take(24 * nk), kw: take(8 * nk),
                kl: take(LINK * this.capeLinkCount), kb: take(BEND * this.capeBendCount),
                kt: take(AERO_TRIANGLE * this.capeTriangleCount),
                kwind: take(WIND3), kgroups: take(GROUPS3), kcolliders: take(COLLIDERS3),
                kcapsules: take(2 * CAPSULE3), kworld: take(WORLD3), kmemory: 0, kmemorySize: 0,
            });
            const mem = this.x.memory;
            const grow = () => {
                if (top > mem.buffer.byteLength) mem.grow(Math.ceil((top - mem.buffer.byteLength) / 65536));
            };
            // The worlds' memory: as much as xpbd_world3_requirements asks for
            // each world with its blocks (written here once to be measured).
            grow();
            this.dv = new DataView(mem.buffer);
            this.writeWorld();
            this.writeCapeWorld();
            this.check(this.x.xpbd_world3_requirements(this.p.world, this.p.requirements), 'xpbd_world3_requirements');
            this.p.memorySize = this.dv.getUint32(this.p.requirements, true);  // memory_size, bytes
            this.check(this.x.xpbd_world3_requirements(this.p.kworld, this.p.requirements), 'xpbd_world3_requirements');
            this.p.kmemorySize = this.dv.getUint32(this.p.requirements, true);
            this.p.memory = take(this.p.memorySize);
            this.p.kmemory = take(this.p.kmemorySize);
            grow();
            const b = mem.buffer;
            this.clothX = new Float64Array(b, this.p.cx, 3 * nc);
            this.clothV = new Float64Array(b, this.p.cv, 3 * nc);
            this.clothW = new Float64Array(b, this.p.cw, nc);
            this.ropeX = new Float64Array(b, this.p.rx, 3 * ROPE_N);
            this.ropeW = new Float64Array(b, this.p.rw, ROPE_N);
            this.ropeV = new Float64Array(3 * ROPE_N);     // the driver's own
            this.ropePrev = new Float64Array(3 * ROPE_N);
            this.capeX = new Float64Array(b, this.p.kx, 3 * nk);
            this.capeV = new Float64Array(b, this.p.kv, 3 * nk);
            this.capeW = new Float64Array(b, this.p.kw, nk);
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
                              p.plane, 1, p.sphere, 1, 0, 0, 0, 0,
                              0, 0, 0, 0, 0, 0, 0]);                 // no capsule, box, field; default budget
            u32(p.world, [p.cx, p.cv, p.cw, nc, p.cl, this.clothLinkCount, p.memory, p.memorySize,
                          p.groups, 0, 0]);                               // ..., blocks, error_index, error_field
        }

        // The cape's world (particles, links, memory, the chain wind -> groups
        // -> colliders) and its blocks; the capsules and the wind's velocity
        // are written every frame (stepCape).
        writeCapeWorld() {
            const dv = this.dv, p = this.p, nk = CAPE_COLS * CAPE_ROWS;
            const u32 = (base, words) => words.forEach((v, k) => dv.setUint32(base + 4 * k, v, true));
            new Uint8Array(this.x.memory.buffer, p.kwind, WIND3).fill(0);
            u32(p.kwind, [XPBD_BLOCK_WIND, WIND3, p.kgroups,
                          p.kt, this.capeTriangleCount, 0]);            // triangles, count; no per-particle wind
            dv.setFloat64(p.kwind + 48, AIR_DENSITY, true);             // density, kg/m³
            new Uint8Array(this.x.memory.buffer, p.kgroups, GROUPS3).fill(0);
            u32(p.kgroups, [XPBD_BLOCK_GROUPS, GROUPS3, p.kcolliders]);
            u32(p.kgroups + BLOCK_HEADER, [p.kb, this.capeBendCount]);  // groups.bends, bend_count
            u32(p.kcolliders, [XPBD_BLOCK_COLLIDERS, COLLIDERS3, 0,
                               0, 0, 0, 0, p.kcapsules, 2, 0, 0,
                               0, 0, 0, 0, 0, 0, 0]);                // two capsules; no field; default budget
            u32(p.kworld, [p.kx, p.kv, p.kw, nk, p.kl, this.capeLinkCount, p.kmemory, p.kmemorySize,
                           p.kwind, 0, 0]);                               // ..., blocks, error_index, error_field
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
            this.resetCape();
        }

        // The cape hanging straight down from the body at its path's start,
        // at rest; its links and bends from that shape, its aero triangles.
        resetCape() {
            const dv = this.dv, p = this.p, x = this.x, X = this.capeX;
            [this.bodyX, this.bodyY] = Demo.bodyPath(0);
            this.bodyScripted = true;
            for (let r = 0; r < CAPE_ROWS; ++r) {
                for (let c = 0; c < CAPE_COLS; ++c) {
                    const k = 3 * (r * CAPE_COLS + c), o = Demo.capeAnchor(c);
                    X[k] = this.bodyX + o[0];
                    X[k + 1] = this.bodyY + o[1] - r * CAPE_SPACING;
                    X[k + 2] = o[2];
                    this.capeW[r * CAPE_COLS + c] = r === 0 ? 0 : 1 / CAPE_MASS;
                }
            }
            this.capeV.fill(0);
            this.check(x.xpbd_build_cloth3(p.kx, CAPE_ROWS, CAPE_COLS, 1, CAPE_COMPLIANCE, p.kl,
                                           this.capeLinkCount, p.count), 'xpbd_build_cloth3');
            this.check(x.xpbd_build_bends_cloth3(p.kx, CAPE_ROWS, CAPE_COLS, CAPE_BEND_COMPLIANCE, p.kb,
                                                 this.capeBendCount, p.count), 'xpbd_build_bends_cloth3');
            // Two triangles per cell, split along (r, c)-(r+1, c+1) as the bends are.
            let t = p.kt;
            for (let r = 0; r + 1 < CAPE_ROWS; ++r) {
                for (let c = 0; c + 1 < CAPE_COLS; ++c) {
                    const a = r * CAPE_COLS + c, d = a + CAPE_COLS + 1;
                    for (const tri of [[a, a + 1, d], [a, d, a + CAPE_COLS]]) {
                        tri.forEach((v, k) => dv.setUint32(t + 4 * k, v, true));
                        dv.setUint32(t + 12, 0, true);
                        dv.setFloat64(t + 16, AERO_DRAG, true); dv.setFloat64(t + 24, AERO_LIFT, true);
                        t += AERO_TRIANGLE;
                    }
                }
            }
            this.writeCapeWorld();
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

        // The step settings at `c`: the sliders' substeps and iterations, or the cape's.
        writeConfig(c, substeps, iterations) {
            const dv = this.dv;
            dv.setFloat64(c, 0, true); dv.setFloat64(c + 8, GRAVITY, true); dv.setFloat64(c + 16, 0, true);
            dv.setUint32(c + 24, substeps, true); dv.setUint32(c + 28, iterations, true);
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

        // A smooth periodic wave of period 1 in [-1, 1] with only + - * / floor:
        // two parabolas, 0 at u = 0, 1 at 1/4, 0 at 1/2, -1 at 3/4.
        static wave(u) {
            const f = u - Math.floor(u);
            return f < 0.5 ? 16 * f * (0.5 - f) : 16 * (f - 0.5) * (f - 1);
        }

        // The body's scripted centre (x, y) at time t (s).
        static bodyPath(t) {
            return [BODY_SWAY * Demo.wave(t / BODY_SWAY_PERIOD), BODY_BOB * Demo.wave(t / BODY_BOB_PERIOD)];
        }

        // Where the cape's top-row particle c sits relative to the body's centre:
        // behind the shoulders (-x), across them along z, bent round them.
        static capeAnchor(c) {
            const z = (c - (CAPE_COLS - 1) / 2) * CAPE_SPACING;
            return [CAPE_WRAP * z * z - (BODY_RADIUS + CAPE_GAP), BODY_HALF_HEIGHT, z];
        }

        // The wind's speed (m/s) in frame f: the set speed, in gusts.
        windSpeedAt(f) {
            return this.windSpeed * (1 + WIND_GUST * Demo.wave(f / 60 / WIND_GUST_PERIOD));
        }

        // Drag the body towards (x, y) (m); bodyScripted = true returns it to its path.
        drag(x, y) { this.bodyScripted = false; this.dragTarget = [x, y]; }

        // One frame of the cape: the body moves from its centre to the next
        // (its path's point at the frame's end, or the dragged target, at most
        // BODY_MAX_SPEED·DT away), the colliders swept over the frame, the
        // top row carried along, the wind's velocity, then one world step.
        stepCape() {
            const dv = this.dv, p = this.p, X = this.capeX, V = this.capeV;
            const [tx, ty] = this.bodyScripted ? Demo.bodyPath((this.frame + 1) / 60) : this.dragTarget;
            let dx = tx - this.bodyX, dy = ty - this.bodyY;
            const d2 = dx * dx + dy * dy, reach = BODY_MAX_SPEED * DT;
            if (d2 > reach * reach) {
                const k = reach / Math.sqrt(d2);
                dx = dx * k; dy = dy * k;
            }
            const nx = this.bodyX + dx, ny = this.bodyY + dy;
            const vx = (nx - this.bodyX) / DT, vy = (ny - this.bodyY) / DT;
            const f64 = (base, values) => values.forEach((v, k) => dv.setFloat64(base + 8 * k, v, true));
            // torso: center, half_axis, radius, velocity, angular_velocity, friction
            f64(p.kcapsules, [this.bodyX, this.bodyY, 0, 0, BODY_HALF_HEIGHT, 0, BODY_RADIUS,
                              vx, vy, 0, 0, 0, 0, BODY_FRICTION[0], BODY_FRICTION[1]]);
            f64(p.kcapsules + CAPSULE3, [this.bodyX, this.bodyY + HEAD_Y, 0, 0, 0, 0, HEAD_RADIUS,
                                         vx, vy, 0, 0, 0, 0, BODY_FRICTION[0], BODY_FRICTION[1]]);
            for (let c = 0; c < CAPE_COLS; ++c) {
                const o = Demo.capeAnchor(c);
                V[3 * c] = (nx + o[0] - X[3 * c]) / DT;
                V[3 * c + 1] = (ny + o[1] - X[3 * c + 1]) / DT;
                V[3 * c + 2] = (o[2] - X[3 * c + 2]) / DT;
            }
            const w = WIND_DIRECTIONS[this.windDirection], speed = this.windSpeedAt(this.frame);
            f64(p.kwind + 24, [speed * w[0], 0, speed * w[1]]);  // wind.velocity, m/s
            this.writeConfig(p.kconfig, CAPE_SUBSTEPS, CAPE_ITERATIONS);
            this.check(this.x.xpbd_world3_step(p.kworld, DT, p.kconfig, 0), 'xpbd_world3_step (cape)');
            this.bodyX = nx; this.bodyY = ny;
        }

        step() {
            const x = this.x, p = this.p;
            this.writeConfig(p.config, this.substeps, this.iterations);
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
            if (this.withCape) this.stepCape();
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

        // FNV-1a 64 over the bytes of the cloth's, the rope's, then the cape's positions.
        stateHash() {
            let hash = 0xcbf29ce484222325n;
            const mask = 0xffffffffffffffffn;
            for (const a of [this.clothX, this.ropeX, this.capeX]) {
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
    Demo.CAPE_COLS = CAPE_COLS;
    Demo.CAPE_ROWS = CAPE_ROWS;
    Demo.BODY = { radius: BODY_RADIUS, halfHeight: BODY_HALF_HEIGHT, headRadius: HEAD_RADIUS, headY: HEAD_Y };
    Demo.WIND_DIRECTIONS = WIND_DIRECTIONS;
    Demo.WIND_GUST = WIND_GUST;

    if (typeof module !== 'undefined' && module.exports) module.exports = { Demo };
    else root.XpbdDemo = Demo;
})(typeof self !== 'undefined' ? self : this);
