/* md5tool retarget: a clip made for one skeleton written out for another, as the demo plays a clips.ini
 * entry with `skeleton = MESH` (engine/build/retarget.h), with the two joint maps printed so a user can see
 * and correct them (characters.ini map.ROLE = JOINT; here --map ROLE=JOINT). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "base/file.h"
#include "build/loader.h"
#include "build/retarget.h"
#include "md5/md5.h"
#include "md5tool_common.h"
#include "md5tool_retarget.h"

static bool axes_vectors(const char *up_word, const char *forward_word, float up[3], float forward[3])
{
    int up_axis, up_sign, forward_axis, forward_sign;
    anim_axes axes;
    if (!anim_axis_parse(up_word, &up_axis, &up_sign) || !anim_axis_parse(forward_word, &forward_axis, &forward_sign) ||
        !anim_axes_make(up_axis, up_sign, forward_axis, forward_sign, &axes))
        return false;
    memset(up, 0, 3 * sizeof *up);
    memset(forward, 0, 3 * sizeof *forward);
    up[up_axis] = (float)up_sign;
    forward[forward_axis] = (float)forward_sign;
    return true;
}

static void print_map(const char *label, const model *m, const retarget_map *map, const retarget_found *found,
                      const float bind_forward[3])
{
    printf("%s: bind pose facing %c%c\n", label,
           bind_forward[0] + bind_forward[1] + bind_forward[2] > 0.0f ? '+' : '-',
           bind_forward[0] != 0.0f ? 'X' : bind_forward[1] != 0.0f ? 'Y' : 'Z');
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
        int j = map->joints[r];
        printf("  map.%-12s %-24s %s\n", retarget_role_name((retarget_role)r), j >= 0 ? m->skeleton.names[j] : "-",
               found ? retarget_found_name(found[r]) : "");
    }
}

int command_retarget(int argc, char **argv)
{
    const char *paths[3] = {NULL, NULL, NULL}, *out_path = NULL;
    const char *up = "+Z", *forward = "+X", *from_up = "+Z", *from_forward = "+X";
    const char *given[RETARGET_ROLE_COUNT] = {NULL};
    int path_count = 0;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--out") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (strcmp(arg, "--up") == 0 && i + 1 < argc) {
            up = argv[++i];
        } else if (strcmp(arg, "--forward") == 0 && i + 1 < argc) {
            forward = argv[++i];
        } else if (strcmp(arg, "--from-up") == 0 && i + 1 < argc) {
            from_up = argv[++i];
        } else if (strcmp(arg, "--from-forward") == 0 && i + 1 < argc) {
            from_forward = argv[++i];
        } else if (strcmp(arg, "--map") == 0 && i + 1 < argc) {
            const char *value = argv[++i], *equals = strchr(value, '=');
            char role[32];
            snprintf(role, sizeof role, "%.*s", equals ? (int)(equals - value) : 0, value);
            int r = retarget_role_from_name(role);
            if (!equals || r < 0)
                return usage_error("retarget: --map takes ROLE=JOINT with a role of `md5tool retarget --help`, "
                                   "not '%s'", value);
            given[r] = equals + 1;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return usage_error("retarget: unknown option or missing value '%s'", arg);
        } else if (path_count < 3) {
            paths[path_count++] = arg;
        } else {
            return usage_error("retarget: FROM_MESH CLIP TO_MESH, not also '%s'", arg);
        }
    }
    if (path_count != 3 || !out_path)
        return usage_error("%s", "retarget needs FROM_MESH CLIP TO_MESH --out OUT.md5anim");
    float spec_axes[4][3];
    if (!axes_vectors(up, forward, spec_axes[0], spec_axes[1]) ||
        !axes_vectors(from_up, from_forward, spec_axes[2], spec_axes[3]))
        return usage_error("%s", "retarget: --up/--forward (and --from-up/--from-forward) take +X -X +Y -Y +Z -Z, "
                                 "forward perpendicular to up");
    if (file_type_of(out_path) != FILE_TYPE_ANIM)
        return usage_error("retarget: --out must name an .md5anim, not '%s'", out_path);
    loaded_file from, clip_file, to;
    bool loaded = load_file(paths[0], FILE_TYPE_MESH, &from);
    loaded = load_file(paths[1], FILE_TYPE_ANIM, &clip_file) && loaded;
    loaded = load_file(paths[2], FILE_TYPE_MESH, &to) && loaded;
    int status = EXIT_INVALID;
    retarget_spec spec = {0};
    retarget_found found[RETARGET_ROLE_COUNT];
    retarget_map wanted = retarget_map_empty();
    diag error;
    clip *baked = NULL;
    if (!loaded) {
        for (int k = 0; k < 3; ++k) {
            const loaded_file *f = k == 0 ? &from : k == 1 ? &clip_file : &to;
            if (!f->ok)
                fprintf(stderr, "md5tool retarget: %s\n", f->error);
        }
        goto done;
    }
    if (!clip_fits_skeleton(clip_file.clip, &from.model->skeleton, paths[1], &error)) {
        fprintf(stderr, "md5tool retarget: %s: the clip was not made for %s: %s\n", paths[1], paths[0], error.message);
        goto done;
    }
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
        if (!given[r])
            continue;
        wanted.joints[r] = skeleton_find_joint(&to.model->skeleton, given[r]);
        if (wanted.joints[r] < 0) {
            fprintf(stderr, "md5tool retarget: --map %s=%s: %s has no joint '%s'\n",
                    retarget_role_name((retarget_role)r), given[r], paths[2], given[r]);
            goto done;
        }
    }
    memcpy(spec.target_up, spec_axes[0], sizeof spec.target_up);
    memcpy(spec.target_forward, spec_axes[1], sizeof spec.target_forward);
    memcpy(spec.source_up, spec_axes[2], sizeof spec.source_up);
    memcpy(spec.source_forward, spec_axes[3], sizeof spec.source_forward);
    if (!retarget_map_find(from.model, spec.source_up, spec.source_forward, NULL, &spec.source_map, NULL,
                           spec.source_bind_forward, &error)) {
        fprintf(stderr, "md5tool retarget: %s: %s\n", paths[0], error.message);
        goto done;
    }
    bool mapped = retarget_map_find(to.model, spec.target_up, spec.target_forward, &wanted, &spec.target_map, found,
                                    spec.target_bind_forward, &error);
    print_map(paths[2], to.model, &spec.target_map, found, spec.target_bind_forward);
    if (!mapped) {
        fprintf(stderr, "md5tool retarget: %s: %s\n", paths[2], error.message);
        goto done;
    }
    if (!build_retargeted_clip(clip_file.clip, &from.model->skeleton, &to.model->skeleton, &spec, &baked, &error)) {
        fprintf(stderr, "md5tool retarget: %s\n", error.message);
        goto done;
    }
    raw_clip raw = {.joint_count = baked->joint_count, .frame_count = baked->frame_count,
                    .frame_rate = baked->frame_rate, .names = baked->names, .parents = baked->parents,
                    .frames = baked->frames, .bounds = baked->bounds};
    file_writer writer;
    char commandline[160];
    snprintf(commandline, sizeof commandline, "md5tool retarget (from %.60s)", paths[0]);
    if (!file_writer_open(&writer, out_path, &error)) {
        fprintf(stderr, "md5tool retarget: %s: %s\n", out_path, error.message);
        goto done;
    }
    if (!md5_write_clip(writer.stream, &raw, commandline)) {
        file_writer_abandon(&writer);
        fprintf(stderr, "md5tool retarget: %s: a joint name holds a quote or a line break; nothing written\n",
                out_path);
        goto done;
    }
    if (!file_writer_commit(&writer, &error)) {
        fprintf(stderr, "md5tool retarget: %s: %s\n", out_path, error.message);
        goto done;
    }
    printf("wrote %s: %d frames of %d joints, travel x%.4g (leg length %s over %s)\n", out_path, baked->frame_count,
           baked->joint_count, (double)retarget_travel_scale(&from.model->skeleton, &to.model->skeleton, &spec),
           paths[2], paths[0]);
    status = EXIT_SUCCESS;
done:
    clip_free(baked);
    loaded_file_free(&from);
    loaded_file_free(&clip_file);
    loaded_file_free(&to);
    return status;
}
