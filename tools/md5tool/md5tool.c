/* md5tool: the command-line inspector for MD5 files. It summarizes or validates .md5mesh/.md5anim files,
 * checks that clips fit a mesh, prints sampled poses and CPU-skinned vertices (as text or JSON, in the
 * file's own Z-up space), draws pictures of posed models without GL (render, sheet), shows a mesh's levels
 * of detail (lod), draws a character's state machine (graph), measures how planted feet drift (feet), runs
 * the benchmarks and writes synthetic assets. Everything it knows about the format comes from the engine; this file only reads arguments and
 * prints.
 * Exit codes: 0 success, 1 a file is invalid or a check failed, 2 the command line is wrong. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/file.h"
#include "bench.h"
#include "base/json.h"
#include "md5/md5.h"
#include "png.h"
#include "pose/pose.h"
#include "raster.h"
#include "synth.h"
#include "tga.h"

#include "md5tool_common.h"
#include "md5tool_convert.h"
#include "md5tool_feet.h"
#include "md5tool_graph.h"
#include "md5tool_lod.h"
#include "md5tool_retarget.h"
#include "md5tool_new_character.h"
#include "md5tool_trace.h"

/* What follows the commands in `md5tool --help`. */
static const char help_notes[] =
    "The file type is decided by the extension (.md5mesh or .md5anim) and the parser must agree; any other\n"
    "file is refused. --json prints one JSON object per file (info) or per command (pose, skin).\n"
    "Pictures show the file's Z-up space upright, framed on the model, with a ground grid under it.\n"
    "V is front, side, back or three-quarter (default): the character is assumed to face +X (as Doom 3's\n"
    "do), so front looks from +X, side from its right (-Y), three-quarter from between them, 20 degrees up.\n"
    "Textures are read from TGA files, searched for as config/characters.ini's header says: the mesh's folder,\n"
    "then --textures DIR as a character's `textures` folder; a missing one is drawn as a checker, with a\n"
    "warning. A sheet spreads a cycle's poses over one loop (a clip whose last frame repeats the first; that\n"
    "repeat is left out) and any other clip's from its first to its last frame.\n"
    "`md5tool COMMAND --help` shows one command's usage.\n"
    "Exit status: 0 all valid, 1 a file is invalid or a clip does not fit, 2 command-line error.\n";

/* ---- info ------------------------------------------------------------------------------------------- */

typedef struct mesh_totals {
    int vertices, triangles, weights, max_weights, vertices_cut;
    int by_weights[SKIN_MAX_INFLUENCES + 1]; /* vertices moved by 0, 1, .. 4 weights (as kept) */
} mesh_totals;

static mesh_totals totals_of(const model *m)
{
    mesh_totals t = {0};
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        t.vertices += mesh->vertex_count;
        t.triangles += mesh->triangle_count;
        t.weights += mesh->weight_count;
        t.vertices_cut += mesh->vertices_cut;
        if (mesh->max_influences > t.max_weights)
            t.max_weights = mesh->max_influences;
        for (int v = 0; v < mesh->vertex_count; ++v) {
            int used = 0;
            for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
                used += mesh->weights[v][k] > 0.0f;
            ++t.by_weights[used];
        }
    }
    return t;
}

static void info_json(const loaded_file *f, const char *textures)
{
    json_writer w = json_writer_start(stdout);
    json_object_begin(&w);
    json_key(&w, "file");
    json_string(&w, f->path);
    json_key(&w, "ok");
    json_bool(&w, f->ok);
    if (f->type != FILE_TYPE_OTHER) {
        json_key(&w, "type");
        json_string(&w, file_type_name(f->type));
    }
    if (!f->ok) {
        json_key(&w, "error");
        json_string(&w, f->error);
    }
    json_key(&w, "warnings");
    json_array_begin(&w);
    for (int i = 0; i < f->warnings.count; ++i) {
        char text[DIAG_TEXT_MAX];
        diag_format(&f->warnings.items[i], text, sizeof text);
        json_string(&w, text);
    }
    json_array_end(&w);
    if (f->warnings.total > f->warnings.count) {
        json_key(&w, "warnings_total");
        json_integer(&w, f->warnings.total);
    }
    if (f->model) {
        mesh_totals t = totals_of(f->model);
        json_key(&w, "joints");
        json_integer(&w, f->model->skeleton.joint_count);
        json_key(&w, "meshes");
        json_integer(&w, f->model->mesh_count);
        json_key(&w, "vertices");
        json_integer(&w, t.vertices);
        json_key(&w, "triangles");
        json_integer(&w, t.triangles);
        json_key(&w, "weights");
        json_integer(&w, t.weights);
        json_key(&w, "max_weights");
        json_integer(&w, t.max_weights);
        json_key(&w, "weights_per_vertex"); /* how many vertices have 1, 2, 3, 4 weights */
        json_array_begin(&w);
        for (int k = 1; k <= SKIN_MAX_INFLUENCES; ++k)
            json_integer(&w, t.by_weights[k]);
        json_array_end(&w);
        json_key(&w, "images"); /* per mesh: its texture and maps, "" for none */
        json_array_begin(&w);
        for (int i = 0; i < f->model->mesh_count; ++i) {
            loader_images images;
            loader_find_images(f->path, f->model->meshes[i].shader, textures, &images);
            json_object_begin(&w);
            json_key(&w, "texture");
            json_string(&w, images.texture);
            json_key(&w, "normal_map");
            json_string(&w, images.normal_map);
            json_key(&w, "specular_map");
            json_string(&w, images.specular_map);
            json_object_end(&w);
        }
        json_array_end(&w);
    }
    if (f->clip) {
        json_key(&w, "joints");
        json_integer(&w, f->clip->joint_count);
        json_key(&w, "frames");
        json_integer(&w, f->clip->frame_count);
        json_key(&w, "frame_rate");
        json_number(&w, f->clip->frame_rate);
    }
    json_object_end(&w);
    putchar('\n');
}

static void info_text(const loaded_file *f, const char *textures)
{
    if (!f->ok) {
        printf("%s\n", f->error);
    } else if (f->model) {
        const model *m = f->model;
        mesh_totals t = totals_of(m);
        printf("%s: md5mesh, %d joints, %d mesh%s, %d vertices, %d triangles, %d weights (at most %d per vertex)\n",
               f->path, m->skeleton.joint_count, m->mesh_count, m->mesh_count == 1 ? "" : "es", t.vertices,
               t.triangles, t.weights, t.max_weights);
        printf("  weights per vertex: 1 x %d, 2 x %d, 3 x %d, 4 x %d\n", t.by_weights[1], t.by_weights[2],
               t.by_weights[3], t.by_weights[4]);
        for (int i = 0; i < m->mesh_count; ++i) {
            const skin_mesh *mesh = &m->meshes[i];
            char shader[DIAG_MESSAGE_MAX]; /* file text: no raw control characters to the terminal */
            diag_escape(mesh->shader, shader, sizeof shader);
            loader_images images;
            loader_find_images(f->path, f->model->meshes[i].shader, textures, &images);
            printf("  mesh %d: shader \"%s\", %d vertices, %d triangles, %d weights, texture %s\n", i,
                   shader, mesh->vertex_count, mesh->triangle_count, mesh->weight_count,
                   images.texture[0] ? images.texture : "not found (placeholder)");
            printf("    normal map %s, specular map %s\n", images.normal_map[0] ? images.normal_map : "none (flat)",
                   images.specular_map[0] ? images.specular_map : "none (the default highlight)");
            if (mesh->vertices_cut > 0)
                printf("    %d vertices have more than %d weights; the GPU path keeps the %d largest "
                       "(at most %.1f%% of a vertex's weight dropped)\n",
                       mesh->vertices_cut, SKIN_MAX_INFLUENCES, SKIN_MAX_INFLUENCES,
                       100.0 * mesh->largest_weight_lost);
        }
    } else if (f->clip) {
        const clip *c = f->clip;
        printf("%s: md5anim, %d joints, %d frames at %g fps, %.3f s played once, %.3f s per loop (%s)\n",
               f->path, c->joint_count, c->frame_count, (double)c->frame_rate, (double)c->once_duration,
               (double)c->loop_duration,
               c->last_frame_is_first ? "last frame repeats the first: Doom 3 loop" : "loop wraps from the last frame to the first");
    }
    for (int i = 0; i < f->warnings.count; ++i) {
        char text[DIAG_TEXT_MAX];
        diag_format(&f->warnings.items[i], text, sizeof text);
        printf("  warning: %s\n", text);
    }
    if (f->warnings.total > f->warnings.count)
        printf("  ... and %d more warnings\n", f->warnings.total - f->warnings.count);
}

static int command_info(int argc, char **argv)
{
    bool json = false;
    const char *textures = NULL;
    int files = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--textures") == 0 && i + 1 < argc)
            textures = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            return usage_error("info: unknown option '%s'", argv[i]);
        else
            files++;
    }
    if (files == 0)
        return usage_error("%s", "info needs at least one FILE: md5tool info [--json] [--textures DIR] FILE...");

    bool all_valid = true;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0)
            continue;
        if (strcmp(argv[i], "--textures") == 0) {
            ++i;
            continue;
        }
        loaded_file f;
        all_valid = load_file(argv[i], FILE_TYPE_OTHER, &f) && all_valid;
        if (json)
            info_json(&f, textures);
        else
            info_text(&f, textures);
        loaded_file_free(&f);
    }
    return all_valid ? EXIT_SUCCESS : EXIT_INVALID;
}

/* ---- check ------------------------------------------------------------------------------------------ */

static int command_check(int argc, char **argv)
{
    if (argc < 3)
        return usage_error("%s", "check needs a mesh and at least one clip: md5tool check MESH ANIM...");
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] == '-' && argv[i][1] == '-')
            return usage_error("check: unknown option '%s'", argv[i]);

    loaded_file mesh;
    if (!load_file(argv[1], FILE_TYPE_MESH, &mesh)) {
        printf("%s\n", mesh.error);
        loaded_file_free(&mesh);
        return EXIT_INVALID;
    }
    bool all_fit = true;
    for (int i = 2; i < argc; ++i) {
        loaded_file anim;
        diag err = {0};
        if (!load_file(argv[i], FILE_TYPE_ANIM, &anim)) {
            printf("%s\n", anim.error);
            all_fit = false;
        } else if (!clip_fits_skeleton(anim.clip, &mesh.model->skeleton, argv[i], &err)) {
            char text[DIAG_TEXT_MAX];
            diag_format(&err, text, sizeof text);
            printf("%s (does not fit %s)\n", text, argv[1]);
            all_fit = false;
        } else {
            printf("%s: fits %s (%d joints)\n", argv[i], argv[1], anim.clip->joint_count);
        }
        loaded_file_free(&anim);
    }
    loaded_file_free(&mesh);
    return all_fit ? EXIT_SUCCESS : EXIT_INVALID;
}

/* ---- pose and skin ---------------------------------------------------------------------------------- */

static void json_floats(json_writer *w, const float *values, int count)
{
    json_array_begin(w);
    for (int i = 0; i < count; ++i)
        json_number(w, values[i]);
    json_array_end(w);
}

static int command_pose(int argc, char **argv)
{
    pose_arguments a;
    int status = parse_pose_arguments("pose", argc, argv, &a);
    if (status)
        return status;
    if (!a.anim_path)
        return usage_error("%s", "pose needs MESH ANIM and --frame F or --time T");
    if (a.has_skinning)
        return usage_error("%s", "pose: --skinning is for skin and render (pose prints joints, not the skin)");
    posed p;
    if (!pose_from_arguments(&a, &p)) {
        posed_free(&p);
        return EXIT_INVALID;
    }
    const skeleton *s = &p.mesh.model->skeleton;
    if (a.json) {
        json_writer w = json_writer_start(stdout);
        json_object_begin(&w);
        json_key(&w, "joints");
        json_array_begin(&w);
        for (int j = 0; j < s->joint_count; ++j) {
            json_object_begin(&w);
            json_key(&w, "name");
            json_string(&w, s->names[j]);
            json_key(&w, "parent");
            json_integer(&w, s->parents[j]);
            json_key(&w, "pos");
            json_floats(&w, p.object[j].position, 3);
            json_key(&w, "orient");
            json_floats(&w, p.object[j].rotation, 4);
            json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
        putchar('\n');
    } else {
        const clip *c = p.anim.clip;
        printf("%s at %.4f s (frame %.3f of %d, %g fps, played once)", a.anim_path, (double)p.time,
               (double)(p.time * c->frame_rate), c->frame_count, (double)c->frame_rate);
        if (a.add_path)
            printf(", adding %s at weight %g (deltas from frame %lld of %s)", a.add_path, a.add_weight,
                   a.reference_frame, a.reference_path ? a.reference_path : a.add_path);
        printf(", object space, Z up\n");
        for (int j = 0; j < s->joint_count; ++j) {
            const joint_pose *o = &p.object[j];
            char name[DIAG_MESSAGE_MAX]; /* file text: no raw control characters to the terminal */
            diag_escape(s->names[j], name, sizeof name);
            printf("  %3d %-24s parent %3d  pos ( %10.6f %10.6f %10.6f )  orient ( %9.6f %9.6f %9.6f %9.6f )\n", j,
                   name, s->parents[j], (double)o->position[0], (double)o->position[1],
                   (double)o->position[2], (double)o->rotation[0], (double)o->rotation[1], (double)o->rotation[2],
                   (double)o->rotation[3]);
        }
    }
    posed_free(&p);
    return EXIT_SUCCESS;
}

/* Skinned positions of every mesh, or NULL after printing why. Bind pose without a clip. */
static float (**skin_meshes(const posed *p, pose_skinning skinning))[3]
{
    const model *m = p->mesh.model;
    size_t meshes = (size_t)(m->mesh_count ? m->mesh_count : 1);
    float (**positions)[3] = calloc(meshes, sizeof *positions);
    float (**normals)[3] = calloc(meshes, sizeof *normals);
    bool ok = positions && normals;
    for (int i = 0; ok && i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        size_t count = (size_t)(mesh->vertex_count ? mesh->vertex_count : 1);
        positions[i] = malloc(count * sizeof *positions[i]);
        normals[i] = malloc(count * sizeof *normals[i]);
        ok = positions[i] && normals[i];
        if (ok && !p->object)
            memcpy(positions[i], mesh->positions, (size_t)mesh->vertex_count * sizeof *positions[i]);
    }
    ok = ok && (!p->object || md5tool_skin(m, p->object, skinning, positions, normals));
    for (int i = 0; normals && i < m->mesh_count; ++i)
        free(normals[i]);
    free(normals);
    if (!ok) {
        fprintf(stderr, "%s: skinning failed (out of memory or refused by the pose stages)\n", p->mesh.path);
        for (int i = 0; positions && i < m->mesh_count; ++i)
            free(positions[i]);
        free(positions);
        return NULL;
    }
    return positions;
}

static int command_skin(int argc, char **argv)
{
    pose_arguments a;
    int status = parse_pose_arguments("skin", argc, argv, &a);
    if (status)
        return status;
    posed p;
    float (**positions)[3] = NULL;
    if (!pose_from_arguments(&a, &p) || !(positions = skin_meshes(&p, a.skinning))) {
        posed_free(&p);
        return EXIT_INVALID;
    }
    const model *m = p.mesh.model;
    if (a.json) {
        json_writer w = json_writer_start(stdout);
        json_object_begin(&w);
        json_key(&w, "meshes");
        json_array_begin(&w);
        for (int i = 0; i < m->mesh_count; ++i) {
            json_object_begin(&w);
            json_key(&w, "positions");
            json_array_begin(&w);
            for (int v = 0; v < m->meshes[i].vertex_count; ++v)
                json_floats(&w, positions[i][v], 3);
            json_array_end(&w);
            json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
        putchar('\n');
    } else {
        if (a.anim_path)
            printf("%s skinned with %s at %.4f s (played once)%s%s, %s, object space, Z up\n", a.mesh_path,
                   a.anim_path, (double)p.time, a.add_path ? ", adding " : "", a.add_path ? a.add_path : "",
                   pose_skinning_name(a.skinning));
        else
            printf("%s in bind pose, object space, Z up\n", a.mesh_path);
        for (int i = 0; i < m->mesh_count; ++i) {
            printf("mesh %d (%d vertices)\n", i, m->meshes[i].vertex_count);
            for (int v = 0; v < m->meshes[i].vertex_count; ++v)
                printf("  %5d ( %10.6f %10.6f %10.6f )\n", v, (double)positions[i][v][0], (double)positions[i][v][1],
                       (double)positions[i][v][2]);
        }
    }
    for (int i = 0; i < m->mesh_count; ++i)
        free(positions[i]);
    free(positions);
    posed_free(&p);
    return EXIT_SUCCESS;
}

/* ---- synth ------------------------------------------------------------------------------------------ */

static int command_synth(int argc, char **argv)
{
    static const struct {
        const char *option;
        size_t offset;
    } counts[] = {
        {"--joints", offsetof(synth_params, joints)},
        {"--vertices", offsetof(synth_params, vertices)},
        {"--triangles", offsetof(synth_params, triangles)},
        {"--weights", offsetof(synth_params, weights_per_vertex)},
        {"--frames", offsetof(synth_params, frames)},
        {"--rate", offsetof(synth_params, frame_rate)},
        {"--meshes", offsetof(synth_params, meshes)},
    };
    synth_params params = {0};
    const char *directory = NULL;
    bool limb = false, creature = false, ik_feet = false;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--doom3-loop") == 0) {
            params.last_frame_is_first = true;
            continue;
        }
        if (strcmp(arg, "--limb") == 0) {
            limb = true;
            continue;
        }
        if (strcmp(arg, "--creature") == 0) {
            creature = true;
            continue;
        }
        if (strcmp(arg, "--ik-feet") == 0) {
            ik_feet = true;
            continue;
        }
        if (strcmp(arg, "--seed") == 0) {
            char *end = NULL;
            if (i + 1 >= argc || argv[i + 1][0] == '-')
                return usage_error("%s", "--seed needs a non-negative integer");
            errno = 0;
            params.seed = strtoull(argv[++i], &end, 10);
            if (*end != '\0' || errno == ERANGE)
                return usage_error("--seed: '%s' is not a non-negative integer", argv[i]);
            continue;
        }
        bool matched = false;
        for (size_t k = 0; k < sizeof counts / sizeof counts[0] && !matched; ++k) {
            if (strcmp(arg, counts[k].option) != 0)
                continue;
            long long value;
            if (i + 1 >= argc || !parse_count(argv[i + 1], 1, 10000000, &value))
                return usage_error("%s needs a whole number from 1 to 10000000", arg);
            *(int *)((char *)&params + counts[k].offset) = (int)value;
            ++i;
            matched = true;
        }
        if (matched)
            continue;
        if (arg[0] == '-' && arg[1] == '-')
            return usage_error("synth: unknown option '%s'", arg);
        if (directory)
            return usage_error("synth: unexpected argument '%s' (one OUTDIR)", arg);
        directory = arg;
    }
    if (!directory)
        return usage_error("%s", "synth needs an OUTDIR: md5tool synth OUTDIR [--joints N ...]");
    if (mkdir(directory, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create folder: %s\n", directory, strerror(errno));
        return EXIT_INVALID;
    }
    char error[512];
    /* The made bodies of fixed shape: which was asked for, how it is written, what the files hold. */
    static const struct {
        bool (*write)(const char *directory, char *error, size_t error_size);
        const char *what;
    } fixed[] = {
        {synth_write_ik_biped, "ikbiped.md5mesh (27 joints: a biped whose feet hang from IK targets under the root, "
                               "not from its shins; Z up, facing +X) and %s/ikbiped_idle.md5anim (its bind pose)"},
        {synth_write_creature, "creature.md5mesh (23 joints: body, neck, head, tail, six legs of thigh, shin and "
                               "claw; Z up, long along Y) and %s/creature_idle.md5anim (its bind pose)"},
        {synth_write_limb, "limb.md5mesh (2 joints, 41 rings of 32 vertices, ring 20 on the joint) and "
                           "%s/limb_twist.md5anim (the joint twisted F degrees at frame F, 0 to 180)"},
    };
    int chosen = ik_feet ? 0 : creature ? 1 : limb ? 2 : -1;
    if (chosen >= 0) {
        if (!fixed[chosen].write(directory, error, sizeof error)) {
            fprintf(stderr, "%s\n", error);
            return EXIT_INVALID;
        }
        printf("wrote %s/", directory);
        printf(fixed[chosen].what, directory);
        printf("\n");
        return EXIT_SUCCESS;
    }
    if (!synth_write_files(directory, &params, error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        return EXIT_INVALID;
    }
    synth_params resolved = synth_resolve(&params);
    printf("wrote %s/synth.md5mesh (%d joints, %d mesh%s, %d vertices, %d triangles, %d weights per vertex) and "
           "%s/synth.md5anim (%d frames at %d fps, seed %llu)\n",
           directory, resolved.joints, resolved.meshes, resolved.meshes == 1 ? "" : "es", resolved.vertices,
           resolved.triangles, resolved.weights_per_vertex, directory, resolved.frames, resolved.frame_rate,
           (unsigned long long)resolved.seed);
    return EXIT_SUCCESS;
}

/* ---- dispatch --------------------------------------------------------------------------------------- */

static int command_bench(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "bench needs a benchmark: md5tool bench parse|pose|anim ...");
    if (strcmp(argv[1], "parse") == 0)
        return bench_parse_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "pose") == 0)
        return bench_pose_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "anim") == 0)
        return bench_anim_main(argc - 1, argv + 1);
    return usage_error("bench: unknown benchmark '%s' (parse, pose or anim)", argv[1]);
}

/* Every command, a row each: `md5tool --help` lists them all, `md5tool NAME --help` (or -h) prints its row.
 * synopsis: one form per line, what follows "md5tool "; a line starting with a space continues the one
 * before. about: what it does, a line each. */
typedef struct md5tool_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
    const char *synopsis;
    const char *about;
} md5tool_command;

static const md5tool_command commands[] = {
    {"info", command_info, "info [--json] [--textures DIR] FILE...",
     "summary of each file, or its error (file:line: message)"},
    {"check", command_check, "check MESH ANIM...", "does each clip's hierarchy fit the mesh's skeleton?"},
    {"pose", command_pose, "pose [--json] MESH ANIM (--frame F | --time T)",
     "object-space joints of the clip played once, at frame F (may be fractional) or T seconds;\n"
     "Z up, as in the file"},
    {"skin", command_skin, "skin [--json] MESH [ANIM (--frame F | --time T)]",
     "CPU-skinned vertex positions per mesh; bind pose without ANIM"},
    {"render", command_render,
     "render MESH [ANIM (--frame F | --time T)] --out FILE.png [--view V] [--size W H] [--skeleton]\n"
     " [--textures DIR] [--no-maps]",
     "a picture of the CPU-skinned model (bind pose without ANIM), drawn without GL, with the normal and specular\n"
     " maps found beside each texture (--no-maps: without them); 512 x 512 by default"},
    {"sheet", command_sheet,
     "sheet --out FILE.png [--columns N] [--cell W H] [--view V] [--textures DIR] [--no-maps] MESH... -- ANIM...",
     "contact sheet: a row per (clip, mesh), N key poses (default 6) in cells of W x H (default 160 x 200)"},
    {"bench", command_bench,
     "bench parse [--runs N] [FILE...]\n"
     "bench pose [MESH ANIM ANIM] [--characters N] [--threads T]\n"
     "bench anim [MESH WALK RUN WAVE] [--characters N] [--config DIR]",
     "parse: parse speed; no files: the synthetic workload\n"
     "pose: per-character pose cost (sample, blend, object, palette)\n"
     "anim: per-entity controller update (crossfade, overlay, events, sample, blend, object pose), then\n"
     "the same with the config's 2D strafe blend on the body; files default to assets/, DIR to config/"},
    {"synth", command_synth,
     "synth OUTDIR [--joints N] [--vertices N] [--triangles N] [--weights N] [--frames N]\n"
     " [--rate N] [--meshes N] [--seed N] [--doom3-loop] | --limb | --creature | --ik-feet",
     "write OUTDIR/synth.md5mesh and OUTDIR/synth.md5anim; --limb the twist test limb, --creature a six-legged\n"
     "creature, --ik-feet a biped whose feet hang from IK targets (each with a bind-pose idle)"},
    {"trace", command_trace, "trace CONFIG_DIR --script FILE [--json] [--character NAME] [--rate HZ]",
     "step a character's state machine through a script of parameter changes (default: first character,\n"
     "60 Hz); a line per step"},
    {"feet", command_feet,
     "feet CONFIG_DIR [--character NAME] [--state NAME] [--set NAME=VALUE]... [--speeds N] [--directions N]\n"
     " [--top-speed M] [--rate HZ] [--seconds S] [--feet JOINT,JOINT] [--lock on|off] [--max-drift MM] [--json]",
     "drive a state (default: the start state) at N speeds from 0 to its top speed (default 20 speeds to the\n"
     "blend's farthest point) in N directions of the character's frame (a 2D blend: default 16), moving it\n"
     "over the floor, and measure per case how far a planted foot drifts (worst per contact, mm), how far\n"
     "the blend's weights sum from 1, and any NaN; with the foot lock (--lock, default characters.ini's\n"
     "foot_lock) also what it did to the legs; exit 1 on a NaN, weights off by more than 1e-6, a knee bent\n"
     "past straight, a drift over --max-drift or a machine that leaves the state (--set its way in: --set\n"
     "strafe=true)"},
    {"graph", command_graph, "graph CONFIG_DIR [--character NAME] --out FILE.svg|FILE.png|FILE.dot",
     "draw a character's state machine (default: first character): states with their clips, transitions\n"
     "with their conditions as states.ini writes them, parameters; .dot writes Graphviz's text, .svg and\n"
     ".png run Graphviz's dot (package graphviz)"},
    {"convert", command_convert, "convert IN OUT [--scale S] [--up AXIS] [--forward AXIS]",
     "rewrite an .md5mesh or .md5anim of ours (Z up, facing +X, metres) in other units (positions times S,\n"
     "0.0001..10000, default 1) and axes (+X -X +Y -Y +Z -Z; default up +Z, forward +X); clips are written\n"
     "fully animated (flags 63)"},
    {"lod", command_lod,
     "lod MESH [--json] [--borders free|locked] [--max-error E] [--stand-in N | --no-stand-in]\n"
     " [--write-level N OUT.md5mesh]",
     "the mesh's levels of detail as the demo builds them: per level its triangles (per mesh and in all),\n"
     "the vertices it uses, its error in model units and in % of the bind pose's height, the stand-in;\n"
     "--write-level writes the mesh again with level N's triangles (to look at it: render, the demo)"},
    {"retarget", command_retarget,
     "retarget FROM_MESH CLIP TO_MESH --out OUT.md5anim [--up AXIS] [--forward AXIS] [--from-up AXIS]\n"
     "         [--from-forward AXIS] [--map ROLE=JOINT]...",
     "CLIP (made for FROM_MESH) written for TO_MESH's skeleton as the demo plays a clips.ini entry with\n"
     "`skeleton = FROM_MESH`: prints TO_MESH's joint map (each role's joint, found by structure or given with\n"
     "--map, as characters.ini's map.ROLE); axes default to +Z up, +X forward, the clips' facing"},
    {"new-character", command_new_character, "new-character NAME MESH ANIM... --out DIR [--force]",
     "a starter config (characters, clips, states, demo, controls) for your own model: roles, speeds, axes\n"
     "and scale guessed and marked in the files (new-character --help for the details)"},
};

/* Each line of text, `indent` spaces in. */
static void print_indented(FILE *out, int indent, const char *text)
{
    for (const char *line = text; *line;) {
        size_t length = strcspn(line, "\n");
        fprintf(out, "%*s%.*s\n", indent, "", (int)length, line);
        line += length + (line[length] == '\n');
    }
}

/* PREFIX "md5tool FORM" a line per form (continuations aligned under the form's arguments), then what it
 * does, about_indent spaces in. */
static void print_command(FILE *out, const md5tool_command *command, const char *prefix, int about_indent)
{
    int continuation = (int)(strlen(prefix) + strlen("md5tool ") + strlen(command->name) + 1);
    for (const char *line = command->synopsis; *line;) {
        size_t length = strcspn(line, "\n");
        if (line[0] == ' ')
            fprintf(out, "%*s%.*s\n", continuation, "", (int)length - 1, line + 1);
        else
            fprintf(out, "%smd5tool %.*s\n", prefix, (int)length, line);
        line += length + (line[length] == '\n');
    }
    print_indented(out, about_indent, command->about);
}

static void print_help(void)
{
    fputs("md5tool: inspect, validate and measure Doom 3 MD5 files (.md5mesh, .md5anim)\n\nusage:\n", stdout);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        print_command(stdout, &commands[i], "  ", 6);
    fputs("  md5tool --help\n\n", stdout);
    fputs(help_notes, stdout);
}

/* --help or -h among a command's arguments (before a `--`, after which every word is a file). */
static bool asks_for_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "no command given");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help();
        return EXIT_SUCCESS;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        if (strcmp(name, commands[i].name) != 0)
            continue;
        /* Each command sees its own name as argv[0], like a program of its own. */
        /* new-character answers --help itself, with its table of clip roles. */
        if (commands[i].run != command_new_character && asks_for_help(argc - 1, argv + 1)) {
            print_command(stdout, &commands[i], "usage: ", 2);
            return EXIT_SUCCESS;
        }
        return commands[i].run(argc - 1, argv + 1);
    }
    return usage_error("unknown command '%s'", name);
}
