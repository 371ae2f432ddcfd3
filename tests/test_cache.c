/* cache: one copy per file however it is spelled, refcounts that free at zero, handles that go stale
 * safely, clips shared between bodies of one hierarchy and refused for another, additive clips baked once
 * per (clip file, reference file, frame) and shared, data derived from clips memoised per (clip, key),
 * errors instead of crashes. Inputs are written by the
 * synthetic generator into a fresh temporary folder; `--boneman` loads the third-party boneman files
 * (test_data.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cache.h"
#include "check.h"
#include "synth.h"
#include "test_data.h"
#include "test_files.h"

static char folder[256];

/* Paths of the files the tests write into `folder`. */
enum { PATH_SIZE = 512 };
static char body_a[PATH_SIZE], body_b[PATH_SIZE], walk[PATH_SIZE], small_clip[PATH_SIZE];
static char renamed_clip[PATH_SIZE], broken[PATH_SIZE], link_to_a[PATH_SIZE], subfolder[PATH_SIZE];
static char fifo[PATH_SIZE];

static const synth_params body_a_params = {.joints = 33, .vertices = 200, .triangles = 300, .frames = 10,
                                           .seed = 1};

static bool write_synth(const char *path, const synth_params *p, bool anim)
{
    size_t size = 0;
    char *text = anim ? synth_anim_text(p, &size) : synth_mesh_text(p, &size);
    bool ok = text && test_write_bytes(path, text, size);
    free(text);
    return ok;
}

static bool setup(void)
{
    if (!test_make_temp_folder(folder, sizeof folder, "test_cache") ||
        !test_paths_in(folder, PATH_SIZE, body_a, "body_a.md5mesh", body_b, "body_b.md5mesh", walk, "walk.md5anim",
                       small_clip, "small.md5anim", renamed_clip, "renamed.md5anim", broken, "broken.md5mesh",
                       link_to_a, "link.md5mesh", subfolder, "sub", fifo, "fifo.md5mesh", NULL))
        return false;

    /* Same hierarchy, different bind pose: another seed gives other joint orientations and weights. */
    synth_params body_b_params = body_a_params;
    body_b_params.seed = 2;
    synth_params small_params = body_a_params;
    small_params.joints = 12;
    bool ok = write_synth(body_a, &body_a_params, false) && write_synth(body_b, &body_b_params, false) &&
              write_synth(walk, &body_a_params, true) && write_synth(small_clip, &small_params, true);

    /* Same joint count and parents as body_a, one joint renamed. */
    size_t size = 0;
    char *text = synth_anim_text(&body_a_params, &size);
    char *neck = text ? strstr(text, "\"neck\"") : NULL;
    if (neck)
        memcpy(neck, "\"nape\"", 6);
    ok = ok && neck && test_write_bytes(renamed_clip, text, size);
    free(text);

    const char garbage[] = "MD5Version 10\nnumJoints banana\n";
    ok = ok && test_write_bytes(broken, garbage, sizeof garbage - 1);
    ok = ok && symlink("body_a.md5mesh", link_to_a) == 0 && mkdir(subfolder, 0700) == 0 && mkfifo(fifo, 0600) == 0;
    return ok;
}

static void teardown(void)
{
    const char *files[] = {body_a, body_b, walk, small_clip, renamed_clip, broken, link_to_a, fifo};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i)
        unlink(files[i]);
    rmdir(subfolder);
    rmdir(folder);
}

static void test_same_file_is_one_entry(void)
{
    cache *c = cache_create();
    diag err = {0};
    char dotted[PATH_SIZE + 8], up_and_down[PATH_SIZE + 16];
    snprintf(dotted, sizeof dotted, "%s/./body_a.md5mesh", folder);
    snprintf(up_and_down, sizeof up_and_down, "%s/sub/../body_a.md5mesh", folder);

    cache_model_handle first = cache_load_model(c, body_a, &err, NULL);
    CHECK(first.id != 0);
    cache_model_handle again = cache_load_model(c, body_a, &err, NULL);
    cache_model_handle spelled_dotted = cache_load_model(c, dotted, &err, NULL);
    cache_model_handle spelled_up = cache_load_model(c, up_and_down, &err, NULL);
    cache_model_handle through_link = cache_load_model(c, link_to_a, &err, NULL);
    CHECK(again.id == first.id);
    CHECK(spelled_dotted.id == first.id);
    CHECK(spelled_up.id == first.id);
    CHECK(through_link.id == first.id);

    cache_stats stats = cache_get_stats(c);
    CHECK(stats.entries == 1);
    CHECK(stats.models == 1);
    CHECK(stats.clips == 0);
    CHECK(stats.users == 5);
    const model *m = cache_model(c, first);
    CHECK(m != NULL);
    CHECK(m && stats.shared_bytes == m->bytes && m->bytes > 0);
    cache_destroy(c);
}

/* Hot reload: a clip rewritten in place (same inode) is a new version. Asking again loads the new data
 * into a new entry; whoever holds the old handle keeps the old data until they release it. */
static void test_file_edited_in_place_is_a_new_version(void)
{
    char edited[PATH_SIZE + 16];
    snprintf(edited, sizeof edited, "%s/edited.md5anim", folder);
    CHECK(write_synth(edited, &body_a_params, true));
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle body = cache_load_model(c, body_a, &err, NULL);
    cache_clip_handle before = cache_load_clip(c, edited, body, &err, NULL);
    CHECK(before.id != 0);
    const clip *old_clip = cache_clip(c, before);
    int old_frames = old_clip ? old_clip->frame_count : 0;

    struct stat original;
    CHECK(stat(edited, &original) == 0);
    synth_params longer = body_a_params;
    longer.frames = 14;
    FILE *f = fopen(edited, "r+b"); /* rewrite through the same inode, as an editor saving in place */
    CHECK(f != NULL);
    if (f) {
        size_t size = 0;
        char *text = synth_anim_text(&longer, &size);
        CHECK(text && fwrite(text, 1, size, f) == size);
        free(text);
        fclose(f);
    }
    struct stat rewritten;
    CHECK(stat(edited, &rewritten) == 0);
    CHECK(rewritten.st_ino == original.st_ino);

    cache_clip_handle after = cache_load_clip(c, edited, body, &err, NULL);
    CHECK(after.id != 0 && after.id != before.id);
    const clip *new_clip = cache_clip(c, after);
    CHECK(new_clip && new_clip->frame_count == 14);
    CHECK(cache_clip(c, before) == old_clip && old_frames == 10); /* the old data stays for its user */
    CHECK(cache_get_stats(c).clips == 2);
    cache_release_clip(c, before);
    CHECK(cache_get_stats(c).clips == 1);
    cache_release_clip(c, after);
    cache_release_model(c, body);
    cache_destroy(c);
    unlink(edited);
}

static void test_last_release_frees(void)
{
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle a = cache_load_model(c, body_a, &err, NULL);
    cache_model_handle b = cache_load_model(c, body_a, &err, NULL);
    CHECK(cache_get_stats(c).users == 2);

    cache_release_model(c, a);
    cache_stats stats = cache_get_stats(c);
    CHECK(stats.entries == 1 && stats.users == 1);
    CHECK(cache_model(c, b) != NULL);

    cache_release_model(c, b);
    stats = cache_get_stats(c);
    CHECK(stats.entries == 0);
    CHECK(stats.models == 0);
    CHECK(stats.users == 0);
    CHECK(stats.shared_bytes == 0);
    CHECK(cache_model(c, a) == NULL);

    /* Releasing again, or releasing nothing, does nothing. */
    cache_release_model(c, b);
    cache_release_model(c, (cache_model_handle){0});
    CHECK(cache_get_stats(c).users == 0);
    cache_destroy(c);
}

static void test_stale_handle_resolves_to_null(void)
{
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle old = cache_load_model(c, body_a, &err, NULL);
    cache_release_model(c, old);
    /* The freed slot is reused by the next load; the old handle must not see the new occupant. */
    cache_model_handle fresh = cache_load_model(c, body_b, &err, NULL);
    CHECK(fresh.id != 0);
    CHECK(fresh.id != old.id);
    CHECK((fresh.id & 0xffffu) == (old.id & 0xffffu)); /* same slot, new generation */
    CHECK(cache_model(c, old) == NULL);
    CHECK(cache_model(c, fresh) != NULL);

    /* Releasing the stale handle must not take a user from the new occupant. */
    cache_release_model(c, old);
    CHECK(cache_get_stats(c).users == 1);

    /* A model handle is not a clip handle, and made-up ids resolve to nothing. */
    CHECK(cache_clip(c, (cache_clip_handle){fresh.id}) == NULL);
    CHECK(cache_model(c, (cache_model_handle){0xffffffffu}) == NULL);
    CHECK(cache_model(c, (cache_model_handle){0}) == NULL);

    diag clip_err = {0};
    cache_clip_handle for_stale = cache_load_clip(c, walk, old, &clip_err, NULL);
    CHECK(for_stale.id == 0);
    CHECK_STR_CONTAINS(clip_err.message, "stale");
    cache_destroy(c);
}

static void test_bodies_share_clips(void)
{
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle a = cache_load_model(c, body_a, &err, NULL);
    cache_model_handle b = cache_load_model(c, body_b, &err, NULL);
    CHECK(a.id && b.id && a.id != b.id);
    const model *model_a = cache_model(c, a), *model_b = cache_model(c, b);
    CHECK(model_a && model_b && model_a != model_b);
    if (model_a && model_b) {
        /* Different bodies: their bind poses (and so inverse binds) differ. */
        CHECK(memcmp(model_a->skeleton.bind_object, model_b->skeleton.bind_object,
                     sizeof(joint_pose) * (size_t)model_a->skeleton.joint_count) != 0);
    }

    cache_clip_handle for_a = cache_load_clip(c, walk, a, &err, NULL);
    if (!for_a.id)
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
    cache_clip_handle for_b = cache_load_clip(c, walk, b, &err, NULL);
    CHECK(for_a.id != 0);
    CHECK(for_b.id == for_a.id);
    CHECK(cache_clip(c, for_a) == cache_clip(c, for_b));

    cache_stats stats = cache_get_stats(c);
    CHECK(stats.entries == 3);
    CHECK(stats.models == 2);
    CHECK(stats.clips == 1);
    CHECK(stats.users == 4);
    const clip *shared = cache_clip(c, for_a);
    CHECK(shared && model_a && model_b &&
          stats.shared_bytes == model_a->bytes + model_b->bytes + shared->bytes);

    /* The clip outlives one of its users. */
    cache_release_clip(c, for_a);
    CHECK(cache_clip(c, for_b) != NULL);
    CHECK(cache_get_stats(c).clips == 1);
    cache_release_clip(c, for_b);
    CHECK(cache_get_stats(c).clips == 0);
    cache_release_model(c, a);
    cache_release_model(c, b);
    CHECK(cache_get_stats(c).entries == 0);
    cache_destroy(c);
}

static void test_mismatching_clip_is_refused(void)
{
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle a = cache_load_model(c, body_a, &err, NULL);
    cache_stats before = cache_get_stats(c);

    /* Fewer joints: refused, nothing kept. */
    cache_clip_handle small = cache_load_clip(c, small_clip, a, &err, NULL);
    CHECK(small.id == 0);
    CHECK_STR_CONTAINS(err.file, "small.md5anim");
    CHECK(err.message[0] != '\0');
    cache_stats after = cache_get_stats(c);
    CHECK(after.entries == before.entries && after.users == before.users &&
          after.shared_bytes == before.shared_bytes);

    /* A renamed joint: the message names it. */
    err = (diag){0};
    cache_clip_handle renamed = cache_load_clip(c, renamed_clip, a, &err, NULL);
    CHECK(renamed.id == 0);
    CHECK(strstr(err.message, "nape") || strstr(err.message, "neck"));
    CHECK(cache_get_stats(c).entries == before.entries);

    /* A clip already held for one model, asked for by a model of another hierarchy: refused without
     * adding (and so leaking) a user. */
    synth_params small_body = body_a_params;
    small_body.joints = 12;
    char small_mesh[PATH_SIZE + 16];
    snprintf(small_mesh, sizeof small_mesh, "%s/small.md5mesh", folder);
    CHECK(write_synth(small_mesh, &small_body, false));
    cache_model_handle little = cache_load_model(c, small_mesh, &err, NULL);
    cache_clip_handle walk_for_a = cache_load_clip(c, walk, a, &err, NULL);
    CHECK(little.id && walk_for_a.id);
    int users = cache_get_stats(c).users;
    err = (diag){0};
    cache_clip_handle walk_for_little = cache_load_clip(c, walk, little, &err, NULL);
    CHECK(walk_for_little.id == 0);
    CHECK_STR_CONTAINS(err.file, "walk.md5anim");
    CHECK(cache_get_stats(c).users == users);
    cache_release_clip(c, walk_for_a);
    CHECK(cache_get_stats(c).clips == 0);
    unlink(small_mesh);
    cache_destroy(c);
}

/* An additive clip is baked once per (clip file, reference file, reference frame), whoever asks (two
 * bodies, a crowd on one clips.ini, a reload that did not change it), counted in the stats, and needs
 * neither clip once made; a clip file edited in place gives a new bake for the new version. */

/* Rewrite a clip file in place (same inode) as body A's clip with 14 frames: a hot reload's edit. */
static void edit_clip_longer(const char *path)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
        synth_params longer = body_a_params;
        longer.frames = 14;
        size_t size = 0;
        char *text = synth_anim_text(&longer, &size);
        CHECK(text && fwrite(text, 1, size, f) == size);
        free(text);
        fclose(f);
    }
}
static void test_additive_clips_are_shared(void)
{
    char other_path[PATH_SIZE + 16];
    snprintf(other_path, sizeof other_path, "%s/other.md5anim", folder);
    synth_params other_params = body_a_params;
    other_params.seed = 3;
    CHECK(write_synth(other_path, &other_params, true));
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle a = cache_load_model(c, body_a, &err, NULL);
    cache_model_handle b = cache_load_model(c, body_b, &err, NULL);
    cache_clip_handle walk_a = cache_load_clip(c, walk, a, &err, NULL);
    cache_clip_handle walk_b = cache_load_clip(c, walk, b, &err, NULL);
    cache_clip_handle other = cache_load_clip(c, other_path, a, &err, NULL);
    CHECK(walk_a.id && walk_a.id == walk_b.id && other.id);

    /* Body a asks, then body b with its own handle to the same file: one bake. */
    cache_clip_handle lean_a = cache_load_additive_clip(c, walk_a, walk_a, 0, &err);
    cache_clip_handle lean_b = cache_load_additive_clip(c, walk_b, walk_b, 0, &err);
    CHECK(lean_a.id != 0 && lean_a.id == lean_b.id);
    const clip *lean = cache_clip(c, lean_a), *source = cache_clip(c, walk_a);
    CHECK(lean && source && lean != source);
    if (!lean || !source) {
        cache_destroy(c);
        return;
    }
    CHECK(lean->frame_count == source->frame_count && lean->frames[0].rotation[3] > 0.999999f);
    cache_stats stats = cache_get_stats(c);
    CHECK(stats.clips == 2 && stats.additive_clips == 1 && stats.entries == 5);
    CHECK(stats.additive_bytes == lean->bytes && lean->bytes > 0);
    CHECK(stats.shared_bytes == cache_model(c, a)->bytes + cache_model(c, b)->bytes + source->bytes +
                                    cache_clip(c, other)->bytes + lean->bytes);

    /* Another frame or another reference file is another bake. */
    cache_clip_handle frame_3 = cache_load_additive_clip(c, walk_a, walk_a, 3, &err);
    cache_clip_handle on_other = cache_load_additive_clip(c, walk_a, other, 0, &err);
    cache_clip_handle other_on_walk = cache_load_additive_clip(c, other, walk_a, 0, &err);
    CHECK(frame_3.id && on_other.id && other_on_walk.id);
    CHECK(frame_3.id != lean_a.id && on_other.id != lean_a.id && on_other.id != frame_3.id &&
          other_on_walk.id != on_other.id);
    CHECK(cache_get_stats(c).additive_clips == 4);
    cache_release_clip(c, frame_3);
    cache_release_clip(c, on_other);
    cache_release_clip(c, other_on_walk);
    CHECK(cache_get_stats(c).additive_clips == 1);

    /* Refused, nothing added: a frame past the reference's last, a stale handle, an additive clip as
     * either clip. */
    int users = cache_get_stats(c).users;
    CHECK(cache_load_additive_clip(c, walk_a, other, other_params.frames, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "reference frame 10 is outside 0 to 9");
    CHECK(cache_load_additive_clip(c, (cache_clip_handle){0xffffu}, walk_a, 0, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "clip handle is stale");
    CHECK(cache_load_additive_clip(c, walk_a, lean_a, 0, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "reference handle is stale, was never loaded or is an additive clip");
    CHECK(cache_load_additive_clip(c, lean_a, walk_a, 0, &err).id == 0);
    CHECK(cache_load_additive_clip(NULL, walk_a, walk_a, 0, &err).id == 0);
    CHECK(cache_get_stats(c).users == users && cache_get_stats(c).additive_clips == 1);

    /* Its source released, the additive clip stays whole (its own hierarchy and frames). */
    cache_release_clip(c, walk_a);
    cache_release_clip(c, walk_b);
    CHECK(cache_clip(c, walk_a) == NULL && cache_clip(c, lean_a) == lean && lean->names[1][0] != '\0');

    /* Hot reload: the clip file edited in place is a new clip, and its additive clip a new bake; the old
     * one stays for its users. */
    edit_clip_longer(walk);
    cache_clip_handle walk_new = cache_load_clip(c, walk, a, &err, NULL);
    cache_clip_handle lean_new = cache_load_additive_clip(c, walk_new, walk_new, 0, &err);
    CHECK(lean_new.id != 0 && lean_new.id != lean_a.id);
    CHECK(cache_clip(c, lean_new) && cache_clip(c, lean_new)->frame_count == 14 && cache_clip(c, lean_a) == lean);
    CHECK(cache_get_stats(c).additive_clips == 2);
    /* Every additive handle is released like a clip's; the rest goes with the cache. */
    cache_release_clip(c, lean_a);
    cache_release_clip(c, lean_b);
    CHECK(cache_clip(c, lean_a) == NULL && cache_get_stats(c).additive_clips == 1);
    cache_release_clip(c, lean_new);
    CHECK(cache_get_stats(c).additive_clips == 0 && cache_get_stats(c).additive_bytes == 0);
    cache_destroy(c);
    /* Put the walk back as setup wrote it, for the tests after this one. */
    CHECK(write_synth(walk, &body_a_params, true));
    unlink(other_path);
}

/* A derivation for the memo tests: per frame, the first joint's x position times the key's factor. It
 * counts its calls, so a test can tell a memo hit from a computation. */
static int derive_calls;

static bool derive_scaled_x(const clip *source, const void *key, size_t key_bytes, void **out, size_t *out_bytes,
                            diag *err)
{
    ++derive_calls;
    float factor;
    if (key_bytes != sizeof factor)
        return diag_set(err, "test", 0, "key of %zu bytes", key_bytes);
    memcpy(&factor, key, sizeof factor);
    if (factor < 0.0f)
        return diag_set(err, "test", 0, "negative factor refused");
    float *values = malloc(sizeof *values * (size_t)source->frame_count);
    if (!values)
        return diag_set(err, "test", 0, "out of memory");
    for (int frame = 0; frame < source->frame_count; ++frame)
        values[frame] = source->frames[(size_t)frame * (size_t)source->joint_count].position[0] * factor;
    *out = values;
    *out_bytes = sizeof *values * (size_t)source->frame_count;
    return true;
}

/* Another derivation with the same key: never given derive_scaled_x's result. */
static bool derive_frame_count(const clip *source, const void *key, size_t key_bytes, void **out, size_t *out_bytes,
                               diag *err)
{
    (void)key;
    (void)key_bytes;
    int *count = malloc(sizeof *count);
    if (!count)
        return diag_set(err, "test", 0, "out of memory");
    *count = source->frame_count;
    *out = count;
    *out_bytes = sizeof *count;
    return true;
}

static void test_derived_data_is_memoised(void)
{
    char edited[PATH_SIZE + 16];
    snprintf(edited, sizeof edited, "%s/derived.md5anim", folder);
    CHECK(write_synth(edited, &body_a_params, true));
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle body = cache_load_model(c, body_a, &err, NULL);
    cache_clip_handle source = cache_load_clip(c, edited, body, &err, NULL);
    const clip *data = cache_clip(c, source);
    CHECK(data != NULL);
    if (!data) {
        cache_destroy(c);
        return;
    }
    size_t base_bytes = cache_get_stats(c).shared_bytes;
    derive_calls = 0;

    /* Same clip, same key bytes: one computation, one entry, two users (and one more of the clip). */
    float two = 2.0f, three = 3.0f;
    cache_derived_handle first = cache_load_derived(c, source, derive_scaled_x, &two, sizeof two, &err);
    cache_derived_handle again = cache_load_derived(c, source, derive_scaled_x, &two, sizeof two, &err);
    CHECK(first.id != 0 && first.id == again.id && derive_calls == 1);
    size_t bytes = 0;
    const float *values = cache_derived(c, first, &bytes);
    CHECK(values && bytes == sizeof(float) * (size_t)data->frame_count);
    for (int frame = 0; values && frame < data->frame_count; ++frame)
        CHECK(values[frame] == data->frames[(size_t)frame * (size_t)data->joint_count].position[0] * 2.0f);
    cache_stats stats = cache_get_stats(c);
    CHECK(stats.derived == 1 && stats.derivations == 1 && stats.entries == 3 && stats.users == 5);
    CHECK(stats.derived_bytes == bytes + sizeof two && stats.shared_bytes == base_bytes);

    /* Another key, or another derivation with the same key, computes again. */
    cache_derived_handle tripled = cache_load_derived(c, source, derive_scaled_x, &three, sizeof three, &err);
    cache_derived_handle counted = cache_load_derived(c, source, derive_frame_count, &two, sizeof two, &err);
    CHECK(tripled.id && tripled.id != first.id && counted.id && counted.id != first.id && derive_calls == 2);
    const int *frames = cache_derived(c, counted, NULL);
    CHECK(frames && *frames == data->frame_count);
    CHECK(cache_get_stats(c).derived == 3 && cache_get_stats(c).derivations == 3);
    cache_release_derived(c, counted);
    cache_release_derived(c, tripled);
    CHECK(cache_derived(c, tripled, NULL) == NULL && cache_get_stats(c).derived == 1);

    /* Refused, nothing held: what derive refuses (not memoised: asked again, it runs again), a stale
     * clip handle, an empty key, no derivation. */
    float negative = -1.0f;
    int users = cache_get_stats(c).users;
    CHECK(cache_load_derived(c, source, derive_scaled_x, &negative, sizeof negative, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "negative factor refused");
    CHECK(cache_load_derived(c, source, derive_scaled_x, &negative, sizeof negative, &err).id == 0 &&
          derive_calls == 4);
    CHECK(cache_load_derived(c, (cache_clip_handle){0xffffu}, derive_scaled_x, &two, sizeof two, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "clip handle is stale");
    CHECK(cache_load_derived(c, source, derive_scaled_x, &two, 0, &err).id == 0);
    CHECK(cache_load_derived(c, source, NULL, &two, sizeof two, &err).id == 0);
    CHECK(cache_load_derived(NULL, source, derive_scaled_x, &two, sizeof two, &err).id == 0);
    CHECK(cache_get_stats(c).users == users && cache_get_stats(c).derived == 1);

    /* The derived data keeps its clip: released by its loader, the clip stays until the last derived user
     * goes, and then both are freed. */
    cache_release_clip(c, source);
    CHECK(cache_clip(c, source) == data && cache_get_stats(c).clips == 1);
    cache_release_derived(c, first);
    CHECK(cache_derived(c, again, NULL) == values && cache_get_stats(c).derived == 1);
    cache_release_derived(c, again);
    stats = cache_get_stats(c);
    CHECK(cache_derived(c, first, NULL) == NULL && cache_clip(c, source) == NULL);
    CHECK(stats.derived == 0 && stats.clips == 0 && stats.derived_bytes == 0 && stats.entries == 1 && stats.users == 1);

    /* Hot reload: the clip file edited in place is a new clip entry, whose derived data is computed again
     * from the new frames, while the old result stays for its user. */
    cache_clip_handle old_clip = cache_load_clip(c, edited, body, &err, NULL);
    cache_derived_handle old_values = cache_load_derived(c, old_clip, derive_scaled_x, &two, sizeof two, &err);
    CHECK(old_values.id != 0 && derive_calls == 5);
    edit_clip_longer(edited);
    cache_clip_handle new_clip = cache_load_clip(c, edited, body, &err, NULL);
    cache_derived_handle new_values = cache_load_derived(c, new_clip, derive_scaled_x, &two, sizeof two, &err);
    CHECK(new_clip.id && new_clip.id != old_clip.id && new_values.id && new_values.id != old_values.id);
    CHECK(derive_calls == 6);
    cache_derived(c, new_values, &bytes);
    CHECK(bytes == sizeof(float) * 14);
    cache_derived(c, old_values, &bytes);
    CHECK(bytes == sizeof(float) * 10);
    cache_release_clip(c, old_clip);
    cache_release_clip(c, new_clip);
    /* Held derived data goes with the cache, its clips with it (the sanitizer build checks nothing leaks). */
    cache_destroy(c);
    unlink(edited);
}

/* A model's levels of detail through the cache: made once per (model entry, settings), the same as
 * build_lods makes them, holding their model; a spelled-out setting is another entry; refusals hold nothing. */
static void test_levels_of_detail_are_shared(void)
{
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle body = cache_load_model(c, body_a, &err, NULL);
    const model *m = cache_model(c, body);
    CHECK(m != NULL);
    if (!m) {
        cache_destroy(c);
        return;
    }
    long derivations = cache_get_stats(c).derivations;
    cache_lods_handle first = cache_load_lods(c, body, NULL, &err);
    cache_lods_handle again = cache_load_lods(c, body, &(build_lod_desc){0}, &err);
    CHECK(first.id != 0 && first.id == again.id && cache_get_stats(c).derivations == derivations + 1);
    const model_lods *lods = cache_lods(c, first);
    model_lods *direct = NULL;
    CHECK(lods && build_lods(m, NULL, &direct, &err));
    if (lods && direct) {
        CHECK(lods->level_count == direct->level_count && lods->mesh_count == direct->mesh_count &&
              lods->bytes == direct->bytes);
        for (int level = 0; level < lods->level_count; ++level)
            CHECK(lods->triangles[level] == direct->triangles[level] && lods->error[level] == direct->error[level]);
    }
    model_lods_free(direct);
    cache_stats stats = cache_get_stats(c);
    CHECK(stats.lods == 1 && stats.entries == 2 && stats.users == 4 && lods &&
          stats.lods_bytes == lods->bytes + sizeof(build_lod_desc));

    /* Other settings (two coarser levels instead of three) are another entry. */
    cache_lods_handle two = cache_load_lods(c, body, &(build_lod_desc){.ratios = {0.4f, 0.1f}}, &err);
    CHECK(two.id && two.id != first.id && cache_lods(c, two) && cache_get_stats(c).lods == 2);
    CHECK(cache_get_stats(c).derivations == derivations + 2 && cache_lods(c, two) != lods);
    cache_release_lods(c, two);
    CHECK(cache_lods(c, two) == NULL && cache_get_stats(c).lods == 1);

    /* Refused, nothing held: a stale model handle, settings build_lods refuses, no cache. */
    int users = cache_get_stats(c).users;
    CHECK(cache_load_lods(c, (cache_model_handle){0xffffu}, NULL, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "model handle is stale");
    CHECK(cache_load_lods(c, body, &(build_lod_desc){.max_error = 2.0f}, &err).id == 0);
    CHECK(cache_load_lods(NULL, body, NULL, &err).id == 0);
    CHECK(cache_get_stats(c).users == users);

    /* The levels keep their model: released by its loader, the model stays until the last user of the
     * levels goes, and then both are freed. */
    cache_release_model(c, body);
    CHECK(cache_model(c, body) == m && cache_get_stats(c).models == 1);
    cache_release_lods(c, first);
    CHECK(cache_lods(c, again) == lods);
    cache_release_lods(c, again);
    stats = cache_get_stats(c);
    CHECK(cache_lods(c, first) == NULL && cache_model(c, body) == NULL);
    CHECK(stats.lods == 0 && stats.models == 0 && stats.lods_bytes == 0 && stats.entries == 0 && stats.users == 0);
    cache_destroy(c);
}

static void test_missing_and_broken_files(void)
{
    cache *c = cache_create();
    diag err = {0};
    char missing[PATH_SIZE + 32];
    snprintf(missing, sizeof missing, "%s/no_such_body.md5mesh", folder);
    cache_model_handle h = cache_load_model(c, missing, &err, NULL);
    CHECK(h.id == 0);
    CHECK_STR_CONTAINS(err.file, "no_such_body.md5mesh");
    char text[DIAG_TEXT_MAX];
    diag_format(&err, text, sizeof text);
    CHECK_STR_CONTAINS(text, missing);

    err = (diag){0};
    CHECK(cache_load_model(c, broken, &err, NULL).id == 0);
    CHECK_STR_CONTAINS(err.file, "broken.md5mesh");

    err = (diag){0};
    CHECK(cache_load_model(c, folder, &err, NULL).id == 0);
    CHECK(err.message[0] != '\0');

    /* A FIFO named like a mesh: refused without opening it (opening would wait for a writer forever). */
    err = (diag){0};
    CHECK(cache_load_model(c, fifo, &err, NULL).id == 0);
    CHECK_STR_CONTAINS(err.message, "not a regular file");

    err = (diag){0};
    CHECK(cache_load_model(c, MARIONETTE_TEST_DATA "/quirks/empty.md5mesh", &err, NULL).id == 0);
    CHECK_STR_CONTAINS(err.file, "empty.md5mesh");

    err = (diag){0};
    CHECK(cache_load_model(c, "", &err, NULL).id == 0);
    CHECK(cache_load_model(c, NULL, &err, NULL).id == 0);

    /* A missing clip for a valid model. */
    cache_model_handle a = cache_load_model(c, body_a, &err, NULL);
    err = (diag){0};
    char missing_clip[PATH_SIZE + 32];
    snprintf(missing_clip, sizeof missing_clip, "%s/no_such_clip.md5anim", folder);
    CHECK(cache_load_clip(c, missing_clip, a, &err, NULL).id == 0);
    CHECK_STR_CONTAINS(err.file, "no_such_clip.md5anim");

    cache_stats stats = cache_get_stats(c);
    CHECK(stats.entries == 1 && stats.users == 1);
    cache_destroy(c);

    /* A NULL cache is an error, not a crash. */
    CHECK(cache_load_model(NULL, body_a, &err, NULL).id == 0);
    CHECK(cache_model(NULL, a) == NULL);
    CHECK(cache_get_stats(NULL).entries == 0);
}

static void test_boneman_files(void)
{
    static const char *clips[] = {"attack", "dead", "dying", "idle", "pain", "running"};
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle boneman = cache_load_model(c, BONEMAN "boneman.md5mesh", &err, NULL);
    CHECK(boneman.id != 0);
    for (size_t i = 0; i < sizeof clips / sizeof clips[0]; ++i) {
        char path[512];
        snprintf(path, sizeof path, BONEMAN "boneman_%s.md5anim", clips[i]);
        cache_clip_handle h = cache_load_clip(c, path, boneman, &err, NULL);
        if (!h.id)
            fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
        CHECK(h.id != 0);
    }
    cache_stats stats = cache_get_stats(c);
    CHECK(stats.models == 1);
    CHECK(stats.clips == 6);
    /* A boneman clip does not fit the synthetic 33-joint body. */
    cache_model_handle synthetic = cache_load_model(c, body_a, &err, NULL);
    CHECK(cache_load_clip(c, BONEMAN "boneman_idle.md5anim", synthetic, &err, NULL).id == 0);
    CHECK(cache_get_stats(c).users == stats.users + 1);
    /* Destroying with users left frees everything (the sanitizer build checks for leaks). */
    cache_destroy(c);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (!setup()) {
        fprintf(stderr, "test_cache: cannot write test files under %s\n", MARIONETTE_BUILD_DIR);
        teardown();
        return 1;
    }
    if (part == TEST_PART_OWN) {
        RUN(test_same_file_is_one_entry);
        RUN(test_file_edited_in_place_is_a_new_version);
        RUN(test_last_release_frees);
        RUN(test_stale_handle_resolves_to_null);
        RUN(test_bodies_share_clips);
        RUN(test_mismatching_clip_is_refused);
        RUN(test_additive_clips_are_shared);
        RUN(test_derived_data_is_memoised);
        RUN(test_levels_of_detail_are_shared);
        RUN(test_missing_and_broken_files);
    }
    if (part == TEST_PART_BONEMAN)
        RUN(test_boneman_files);
    teardown();
    return check_report();
}
