/* Issue 33: every cause of a refused step has its own status or detail
 * code. Before, substeps 0, iterations 0, NaN gravity, radius 0 with
 * self-collision, a short hash table, a NULL adjacency buffer and a max
 * force of 0 all returned XPBD_STATUS_INVALID_ARGUMENT with error_index 0.
 * Now: INVALID_CONFIG naming the field (XPBD_FIELD_*), INVALID_SELF_COLLISION
 * naming the radius or the rest positions, CAPACITY_TOO_SMALL naming the
 * memory (the hash table and adjacency come from it: too small or NULL,
 * error_index the bytes needed), the contacts or the pairs (error_index the
 * count needed), INVALID_MAX_FORCE naming the link, INVALID_TIME_STEP
 * naming the frame time, INVALID_BLOCK naming a forged block's position.
 * Each leaves the positions and velocities bit for bit as they were. */
#include <math.h>

#include "ensure.h"

enum { CN = 4, CL = CN - 1 };

/* A rope of CN free particles resting on the plane y = 0 (inside the
 * particle radius: one contact each), with a colliders, a self-collision
 * and a tearing block: chain colliders (0) -> self-collision (1) ->
 * tearing (2). */
typedef struct {
    double x[CN][3], v[CN][3], w[CN], rest[CN][3], max_force[CL];
    XpbdLink links[CL];
    XpbdPlane3 ground;
    XpbdWorld3 world;
    XpbdColliders3 colliders;
    XpbdSelfCollision3 self;
    XpbdTearing3 tearing;
    XpbdRequirements req;
    void *base; /* the allocation: XPBD_MEMORY_ALIGN more than needed */
} Scene;

static void scene_init(Scene *s) {
    size_t k, count = 0;
    memset(s, 0, sizeof *s);
    for (k = 0; k < CN; ++k) {
        s->x[k][0] = 0.1 * (double)k;
        s->x[k][1] = 0.005;
        s->w[k] = 1.0;
        memcpy(s->rest[k], s->x[k], sizeof s->rest[k]);
    }
    ENSURE_STATUS(xpbd_build_rope3(&s->x[0][0], CN, 0.0, s->links, CL, &count), XPBD_STATUS_OK);
    ENSURE(count == CL);
    for (k = 0; k < CL; ++k) s->max_force[k] = 1e9;
    s->ground.normal[1] = 1.0;
    s->world = xpbd_world3_default();
    s->world.positions = s->x; s->world.velocities = s->v; s->world.inverse_masses = s->w;
    s->world.particle_count = CN;
    s->world.links = s->links; s->world.link_count = count;
    s->colliders = xpbd_colliders3_default();
    s->colliders.planes = &s->ground; s->colliders.plane_count = 1;
    s->self = xpbd_self_collision3_default();
    s->self.rest_positions = s->rest;
    s->tearing = xpbd_tearing3_default();
    s->tearing.max_force = s->max_force;
    ENSURE_STATUS(xpbd_world3_add(&s->world, &s->tearing.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_add(&s->world, &s->self.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_add(&s->world, &s->colliders.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_requirements(&s->world, &s->req), XPBD_STATUS_OK);
    ENSURE(s->req.contacts == CN && s->req.pairs == XPBD_DEFAULT_PAIRS_PER_PARTICLE * CN && s->req.scratch == 3 * CN + 2 * count);
    s->base = malloc(s->req.memory_size + XPBD_MEMORY_ALIGN);
    s->world.memory = s->base;
    s->world.memory_size = s->base != NULL ? s->req.memory_size : 0;
}

/* The (status, field) of every cause provoked, for the distinctness check. */
typedef struct {
    const char *what;
    int32_t status, field;
} Seen;
static Seen seen[64];
static size_t seen_count;

/* Steps the world once and checks the status, error_field and error_index,
 * and that the positions and velocities are bit for bit as before. */
static void expect(const char *what, XpbdWorld3 *world, double dt, const XpbdStepConfig3 *config,
                   int32_t status, int32_t field, size_t index) {
    const size_t n = world->particle_count;
    double x0[CN][3], v0[CN][3];
    int32_t got;
    memcpy(x0, world->positions, n * sizeof x0[0]);
    memcpy(v0, world->velocities, n * sizeof v0[0]);
    world->error_index = 12345;
    world->error_field = -1;
    got = xpbd_world3_step(world, dt, config, NULL);
    ++xpbd_test_checks;
    if (got != status || world->error_field != field || world->error_index != index) {
        ++xpbd_test_failures;
        fprintf(stderr,
                "test_causes.c: %s: status %d (%s), field %d, index %lu; expected %d (%s), field %d, index %lu\n",
                what, (int)got, xpbd_status_str(got), (int)world->error_field, (unsigned long)world->error_index,
                (int)status, xpbd_status_str(status), (int)field, (unsigned long)index);
    }
    ++xpbd_test_checks;
    if (memcmp(world->positions, x0, n * sizeof x0[0]) != 0 || memcmp(world->velocities, v0, n * sizeof v0[0]) != 0) {
        ++xpbd_test_failures;
        fprintf(stderr, "test_causes.c: %s: positions or velocities changed\n", what);
    }
    if (seen_count < sizeof seen / sizeof seen[0]) {
        seen[seen_count].what = what;
        seen[seen_count].status = got;
        seen[seen_count].field = world->error_field;
        ++seen_count;
    }
}

/* The configuration causes: INVALID_CONFIG and the field. */
static void config_causes(Scene *s) {
    const double dt = 1.0 / 60.0;
    XpbdStepConfig3 c = xpbd_step_config3_default();
#define CONFIG_CAUSE(what, change, field)                                        \
    do {                                                                         \
        c = xpbd_step_config3_default();                                         \
        change;                                                                  \
        expect(what, &s->world, dt, &c, XPBD_STATUS_INVALID_CONFIG, field, 0);   \
    } while (0)
    CONFIG_CAUSE("substeps 0", c.substeps = 0, XPBD_FIELD_SUBSTEPS);
    CONFIG_CAUSE("iterations 0", c.iterations = 0, XPBD_FIELD_ITERATIONS);
    CONFIG_CAUSE("NaN gravity", c.gravity[1] = NAN, XPBD_FIELD_GRAVITY);
    CONFIG_CAUSE("infinite gravity", c.gravity[2] = HUGE_VAL, XPBD_FIELD_GRAVITY);
    CONFIG_CAUSE("negative tolerance", c.tolerance = -1.0, XPBD_FIELD_TOLERANCE);
    CONFIG_CAUSE("negative damping", c.damping = -1.0, XPBD_FIELD_DAMPING);
    CONFIG_CAUSE("NaN damping", c.damping = NAN, XPBD_FIELD_DAMPING);
    CONFIG_CAUSE("negative radius", c.particle_radius = -0.01, XPBD_FIELD_PARTICLE_RADIUS);
    CONFIG_CAUSE("negative contact compliance", c.contact_compliance = -1.0, XPBD_FIELD_CONTACT_COMPLIANCE);
    CONFIG_CAUSE("negative static friction", c.static_friction = -0.5, XPBD_FIELD_STATIC_FRICTION);
    CONFIG_CAUSE("NaN dynamic friction", c.dynamic_friction = NAN, XPBD_FIELD_DYNAMIC_FRICTION);
    CONFIG_CAUSE("unknown zero-length policy", c.zero_length_policy = 7, XPBD_FIELD_ZERO_LENGTH_POLICY);
    CONFIG_CAUSE("unknown contact overflow", c.contact_overflow = 5, XPBD_FIELD_CONTACT_OVERFLOW);
#undef CONFIG_CAUSE
    /* The frame time: its own field. */
    c = xpbd_step_config3_default();
    expect("NaN dt", &s->world, NAN, &c, XPBD_STATUS_INVALID_TIME_STEP, XPBD_FIELD_FRAME_TIME, 0);
    expect("dt 0", &s->world, 0.0, &c, XPBD_STATUS_INVALID_TIME_STEP, XPBD_FIELD_FRAME_TIME, 0);
    expect("negative dt", &s->world, -dt, &c, XPBD_STATUS_INVALID_TIME_STEP, XPBD_FIELD_FRAME_TIME, 0);
}

/* Self-collision, tearing and the budgets. */
static void feature_causes(Scene *s) {
    const double dt = 1.0 / 60.0;
    XpbdStepConfig3 c = xpbd_step_config3_default();
    c.particle_radius = 0.0;
    expect("radius 0 with self-collision", &s->world, dt, &c, XPBD_STATUS_INVALID_SELF_COLLISION,
           XPBD_FIELD_PARTICLE_RADIUS, 0);
    c = xpbd_step_config3_default();
    s->rest[2][1] = NAN;
    expect("NaN rest position", &s->world, dt, &c, XPBD_STATUS_INVALID_SELF_COLLISION, XPBD_FIELD_REST_POSITIONS, 0);
    s->rest[2][1] = s->x[2][1];

    s->max_force[2] = 0.0;
    expect("max force 0", &s->world, dt, &c, XPBD_STATUS_INVALID_MAX_FORCE, XPBD_FIELD_NONE, 2);
    s->max_force[2] = -1.0;
    expect("negative max force", &s->world, dt, &c, XPBD_STATUS_INVALID_MAX_FORCE, XPBD_FIELD_NONE, 2);
    s->max_force[2] = 1e9;
    s->max_force[1] = NAN;
    expect("NaN max force", &s->world, dt, &c, XPBD_STATUS_INVALID_MAX_FORCE, XPBD_FIELD_NONE, 1);
    s->max_force[1] = 1e9;

    /* Every particle touches the plane: CN contacts, room for one. */
    s->colliders.contact_budget = 1;
    expect("contact budget exceeded", &s->world, dt, &c, XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_FIELD_CONTACTS, CN);
    s->colliders.contact_budget = 0;
}

/* The memory: too small, NULL or misaligned; error_index the bytes needed. */
static void memory_causes(Scene *s) {
    const double dt = 1.0 / 60.0;
    XpbdStepConfig3 c = xpbd_step_config3_default();
    const size_t need = s->req.memory_size;
    s->world.memory_size = need - 1;
    expect("memory too small", &s->world, dt, &c, XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_FIELD_MEMORY, need);
    s->world.memory_size = 0;
    expect("memory size 0", &s->world, dt, &c, XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_FIELD_MEMORY, need);
    s->world.memory_size = need;
    s->world.memory = NULL;
    expect("NULL memory", &s->world, dt, &c, XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_FIELD_MEMORY, need);
    s->world.memory = (unsigned char *)s->base + 4;
    expect("misaligned memory", &s->world, dt, &c, XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_FIELD_MEMORY, need);
    s->world.memory = s->base;
}

/* Forged chains: an unknown kind, a wrong size, a kind twice, a cycle, a
 * float block in a double world. */
static void block_causes(Scene *s) {
    const double dt = 1.0 / 60.0;
    XpbdStepConfig3 c = xpbd_step_config3_default();
    XpbdColliders3 twin = xpbd_colliders3_default();
    XpbdColliders3F32 single = xpbd_colliders3_default_f32();
    XpbdRequirements req;
    uint32_t kind = s->self.block.kind, size = s->tearing.block.size;

    s->self.block.kind = 99;
    expect("unknown block kind", &s->world, dt, &c, XPBD_STATUS_INVALID_BLOCK, XPBD_FIELD_BLOCK, 1);
    s->world.error_index = 0;
    ENSURE_STATUS(xpbd_world3_requirements(&s->world, &req), XPBD_STATUS_INVALID_BLOCK);
    ENSURE(s->world.error_index == 1 && s->world.error_field == XPBD_FIELD_BLOCK);
    s->self.block.kind = kind;

    s->tearing.block.size = size - 8;
    expect("wrong block size", &s->world, dt, &c, XPBD_STATUS_INVALID_BLOCK, XPBD_FIELD_BLOCK, 2);
    s->tearing.block.size = size;

    ENSURE_STATUS(xpbd_world3_add(&s->world, &twin.block), XPBD_STATUS_OK);
    expect("a kind twice", &s->world, dt, &c, XPBD_STATUS_INVALID_BLOCK, XPBD_FIELD_BLOCK, 1);
    /* Adding the head again is refused at once. */
    ENSURE_STATUS(xpbd_world3_add(&s->world, &twin.block), XPBD_STATUS_INVALID_BLOCK);
    s->world.blocks = &s->colliders.block;

    s->tearing.block.next = &s->colliders.block; /* a cycle */
    expect("a cycle", &s->world, dt, &c, XPBD_STATUS_INVALID_BLOCK, XPBD_FIELD_BLOCK, 3);
    s->tearing.block.next = NULL;

    single.block.next = s->world.blocks;
    s->world.blocks = &single.block;
    expect("a float block in a double world", &s->world, dt, &c, XPBD_STATUS_INVALID_BLOCK, XPBD_FIELD_BLOCK, 0);
    s->world.blocks = &s->colliders.block;
}

/* Pairs: three unlinked particles within 2r of each other, room for one. */
static void pair_cause(void) {
    double x[3][3] = {{0.0, 0.0, 0.0}, {0.01, 0.0, 0.0}, {0.0, 0.01, 0.0}};
    double v[3][3] = {{0.0}}, w[3] = {1.0, 1.0, 1.0};
    XpbdWorld3 world = xpbd_world3_default();
    XpbdSelfCollision3 self = xpbd_self_collision3_default();
    XpbdStepConfig3 c = xpbd_step_config3_default();
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 3;
    self.pair_budget = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &self.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    c.gravity[1] = 0.0;
    expect("pair budget exceeded", &world, 1.0 / 60.0, &c, XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_FIELD_PAIRS, 3);
    self.pair_budget = 0;
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &c, NULL), XPBD_STATUS_OK);
    test_world3_free(&world);
}

/* The float world: the same codes. */
static void float_causes(void) {
    float x[2][3] = {{0.0f, 0.0f, 0.0f}, {0.1f, 0.0f, 0.0f}}, v[2][3] = {{0.0f}}, w[2] = {1.0f, 1.0f};
    float x0[2][3], v0[2][3];
    XpbdWorld3F32 world = xpbd_world3_default_f32();
    XpbdSelfCollision3F32 self = xpbd_self_collision3_default_f32();
    XpbdColliders3 double_block = xpbd_colliders3_default();
    XpbdStepConfig3F32 c = xpbd_step_config3_default_f32();
    XpbdRequirements req;
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 2;
    ENSURE(self.block.kind == (XPBD_BLOCK_SELF_COLLISION | XPBD_BLOCK_F32));
    ENSURE_STATUS(xpbd_world3_add_f32(&world, &self.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_requirements_f32(&world, &req), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory_f32(&world), XPBD_STATUS_OK);
    memcpy(x0, x, sizeof x); memcpy(v0, v, sizeof v);
    c.iterations = 0;
    ENSURE_STATUS(xpbd_world3_step_f32(&world, 1.0f / 60.0f, &c, NULL), XPBD_STATUS_INVALID_CONFIG);
    ENSURE(world.error_field == XPBD_FIELD_ITERATIONS);
    c.iterations = 1;
    c.particle_radius = 0.0f;
    ENSURE_STATUS(xpbd_world3_step_f32(&world, 1.0f / 60.0f, &c, NULL), XPBD_STATUS_INVALID_SELF_COLLISION);
    ENSURE(world.error_field == XPBD_FIELD_PARTICLE_RADIUS);
    c.particle_radius = 0.01f;
    world.memory_size = req.memory_size - 1;
    ENSURE_STATUS(xpbd_world3_step_f32(&world, 1.0f / 60.0f, &c, NULL), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE(world.error_field == XPBD_FIELD_MEMORY && world.error_index == req.memory_size);
    world.memory_size = req.memory_size;
    double_block.block.next = world.blocks;
    world.blocks = &double_block.block;
    ENSURE_STATUS(xpbd_world3_step_f32(&world, 1.0f / 60.0f, &c, NULL), XPBD_STATUS_INVALID_BLOCK);
    ENSURE(world.error_field == XPBD_FIELD_BLOCK && world.error_index == 0);
    world.blocks = &self.block;
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    ENSURE_STATUS(xpbd_world3_step_f32(&world, 1.0f / 60.0f, &c, NULL), XPBD_STATUS_OK);
    test_world3_free_f32(&world);
}

/* Two causes are told apart when their (status, field) differ. */
static int same_code(const char *a, const char *b) {
    size_t i, j;
    for (i = 0; i < seen_count && strcmp(seen[i].what, a) != 0; ++i) {}
    for (j = 0; j < seen_count && strcmp(seen[j].what, b) != 0; ++j) {}
    if (i == seen_count || j == seen_count) return 1; /* not provoked: fail */
    return seen[i].status == seen[j].status && seen[i].field == seen[j].field;
}

void test_causes(void) {
    static Scene s;
    /* The issue's list: formerly all INVALID_ARGUMENT, index 0. */
    const char *issue[] = {"substeps 0", "iterations 0", "NaN gravity", "radius 0 with self-collision",
                           "memory too small", "max force 0", "contact budget exceeded", "NaN dt",
                           "unknown block kind"};
    const int32_t added[] = {XPBD_STATUS_INVALID_CONFIG, XPBD_STATUS_INVALID_SELF_COLLISION,
                             XPBD_STATUS_INVALID_MAX_FORCE, XPBD_STATUS_INVALID_BLOCK};
    const size_t n_issue = sizeof issue / sizeof issue[0], n_added = sizeof added / sizeof added[0];
    const char *unknown = xpbd_status_str(INT32_MIN);
    size_t i, j;

    seen_count = 0;
    scene_init(&s);
    if (s.base == NULL) return;
    config_causes(&s);
    feature_causes(&s);
    memory_causes(&s);
    block_causes(&s);
    pair_cause();
    float_causes();

    /* The scene itself steps: every cause above was the only fault. */
    {
        XpbdStepConfig3 c = xpbd_step_config3_default();
        XpbdStepStats stats;
        ENSURE_STATUS(xpbd_world3_step(&s.world, 1.0 / 60.0, &c, &stats), XPBD_STATUS_OK);
        ENSURE(stats.max_contacts == CN && stats.torn == 0);
    }

    /* No cause is INVALID_ARGUMENT any more; the issue's causes are told
     * apart by status or field. (A NULL memory is the same cause as a
     * short one: the memory, with the bytes it needs.) */
    for (i = 0; i < seen_count; ++i) {
        ENSURE(seen[i].status != XPBD_STATUS_INVALID_ARGUMENT);
        ENSURE(seen[i].status < 0);
    }
    for (i = 0; i < n_issue; ++i)
        for (j = i + 1; j < n_issue; ++j) {
            ++xpbd_test_checks;
            if (same_code(issue[i], issue[j])) {
                ++xpbd_test_failures;
                fprintf(stderr, "test_causes.c: '%s' and '%s' give the same status and field\n", issue[i], issue[j]);
            }
        }
    ENSURE(same_code("memory too small", "NULL memory"));

    /* The new statuses: distinct codes and texts, none the unknown one. */
    for (i = 0; i < n_added; ++i) {
        const char *text = xpbd_status_str(added[i]);
        ENSURE(added[i] < 0 && added[i] != XPBD_STATUS_INVALID_ARGUMENT && added[i] != XPBD_STATUS_CAPACITY_TOO_SMALL);
        ENSURE(text != NULL && strlen(text) > 0 && strcmp(text, unknown) != 0);
        ENSURE(strcmp(text, xpbd_status_str(XPBD_STATUS_INVALID_ARGUMENT)) != 0);
        for (j = i + 1; j < n_added; ++j) {
            ENSURE(added[i] != added[j]);
            ENSURE(strcmp(text, xpbd_status_str(added[j])) != 0);
        }
    }
    free(s.base);
}
