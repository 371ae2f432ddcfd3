/* .md5mesh -> model: skeleton, inverse bind matrices, bind positions, normals, UVs, skin influences,
 * texture lookup, and refusal of files that are not meshes. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "test_data.h"
#include "test_files.h"

/* Two joints: a root at the origin and "arm" at (1, 0, 0) turned 90 degrees about z. Vertex 0 hangs off
 * the root, vertex 1 off the arm at its local (0, 1, 0) = object (0, 0, 0), vertex 2 splits two
 * weights. */
static const char two_joint_mesh[] =
    "MD5Version 10\n"
    "commandline \"\"\n"
    "numJoints 2\n"
    "numMeshes 1\n"
    "joints {\n"
    "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
    "\t\"arm\"\t0 ( 1 0 0 ) ( 0 0 0.707107 )\n"
    "}\n"
    "mesh {\n"
    "\tshader \"missing_texture\"\n"
    "\tnumverts 3\n"
    "\tvert 0 ( 0.25 0.75 ) 0 1\n"
    "\tvert 1 ( 1 0 ) 1 1\n"
    "\tvert 2 ( 0 1 ) 2 2\n"
    "\tnumtris 1\n"
    "\ttri 0 0 2 1\n"
    "\tnumweights 4\n"
    "\tweight 0 0 1 ( 2 0 0 )\n"
    "\tweight 1 1 1 ( 0 1 0 )\n"
    "\tweight 2 0 0.25 ( 0 2 0 )\n"
    "\tweight 3 1 0.75 ( 0 0 0 )\n"
    "}\n";

static model *parse(const char *text, diag *err, diag_list *warnings)
{
    model *m = NULL;
    bool ok = loader_parse_md5_model(text, strlen(text), "memory/test.md5mesh", &m, err, warnings);
    CHECK(ok == (m != NULL));
    return m;
}

static void test_skeleton_and_inverse_bind(void)
{
    diag err = {0};
    model *m = parse(two_joint_mesh, &err, NULL);
    if (!m)
        return;
    const skeleton *s = &m->skeleton;
    CHECK(s->joint_count == 2);
    CHECK(strcmp(s->names[0], "root") == 0 && strcmp(s->names[1], "arm") == 0);
    CHECK(s->parents[0] == -1 && s->parents[1] == 0);
    CHECK(((uintptr_t)s->bind_object % 16) == 0 && ((uintptr_t)s->inverse_bind % 16) == 0);
    CHECK_NEAR(s->bind_object[1].rotation[2], 0.707107, 1e-6);
    CHECK_NEAR(s->bind_object[1].rotation[3], -0.707107, 1e-6); /* w recovered with the negative sign */
    CHECK(s->bind_object[1].position[0] == 1.0f);
    for (int j = 0; j < 2; ++j) {
        mat4 bind, product;
        glm_quat_mat4((float *)s->bind_object[j].rotation, bind);
        glm_vec3_copy((float *)s->bind_object[j].position, bind[3]);
        glm_mat4_mul(bind, (vec4 *)s->inverse_bind[j], product);
        for (int k = 0; k < 16; ++k)
            CHECK_NEAR(product[k / 4][k % 4], k / 4 == k % 4 ? 1.0 : 0.0, 1e-5);
    }
    CHECK(m->bytes > sizeof *m);
    model_free(m);
}

static void test_bind_positions_and_influences(void)
{
    diag err = {0};
    diag_list warnings = {0};
    model *m = parse(two_joint_mesh, &err, &warnings);
    if (!m)
        return;
    CHECK(warnings.total == 0);
    const skin_mesh *mesh = &m->meshes[0];
    CHECK(mesh->vertex_count == 3 && mesh->triangle_count == 1 && mesh->weight_count == 4);
    CHECK(strcmp(mesh->shader, "missing_texture") == 0 && mesh->texture_path == NULL);
    CHECK(mesh->uvs[0][0] == 0.25f && mesh->uvs[0][1] == 0.75f);
    CHECK(mesh->triangles[0][0] == 0 && mesh->triangles[0][1] == 2 && mesh->triangles[0][2] == 1);
    /* vertex 0: root + (2, 0, 0). vertex 1: the arm at (1, 0, 0); with w = -0.707107 its rotation is -90
     * degrees about z, so its local y is object +x: (2, 0, 0). */
    CHECK_NEAR(mesh->positions[0][0], 2.0, 1e-5);
    CHECK_NEAR(mesh->positions[1][0], 2.0, 1e-5);
    CHECK_NEAR(mesh->positions[1][1], 0.0, 1e-5);
    /* vertex 2: 0.25 * (0, 2, 0) + 0.75 * (1, 0, 0). */
    CHECK_NEAR(mesh->positions[2][0], 0.75, 1e-5);
    CHECK_NEAR(mesh->positions[2][1], 0.5, 1e-5);
    /* Largest first; unused slots joint 0 weight 0. */
    CHECK(mesh->joints[2][0] == 1 && mesh->joints[2][1] == 0);
    CHECK_NEAR(mesh->weights[2][0], 0.75, 1e-6);
    CHECK_NEAR(mesh->weights[2][1], 0.25, 1e-6);
    CHECK(mesh->weights[2][2] == 0.0f && mesh->joints[2][3] == 0);
    CHECK(mesh->max_influences == 2 && mesh->vertices_cut == 0);
    /* All in the z = 0 plane: normals along z, unit length. */
    for (int v = 0; v < 3; ++v) {
        CHECK_NEAR(fabs(mesh->normals[v][2]), 1.0, 1e-6);
    }
    /* The bind-pose box: x from 0.75 to 2, y from 0 to 0.5, z 0 (what a characters.ini height measures). */
    CHECK_NEAR(m->bind_bounds[0][0], 0.75, 1e-5);
    CHECK_NEAR(m->bind_bounds[1][0], 2.0, 1e-5);
    CHECK_NEAR(m->bind_bounds[0][1], 0.0, 1e-5);
    CHECK_NEAR(m->bind_bounds[1][1], 0.5, 1e-5);
    CHECK(m->bind_bounds[0][2] == 0.0f && m->bind_bounds[1][2] == 0.0f);
    diag_list_free(&warnings);
    model_free(m);
}

/* The Maya cube from assimp-testmodels (`--assimp`, test_data.h): every normal must point away from the
 * centre with the winding as written (that is the front-face convention build_normals assumes). */
static void test_cube_normals_point_outward(void)
{
    model *m = NULL;
    diag err = {0};
    CHECK(loader_load_md5_model(ASSIMP_CUBE, &m, &err, NULL));
    if (!m)
        return;
    const skin_mesh *mesh = &m->meshes[0];
    CHECK(mesh->vertex_count == 24 && mesh->triangle_count == 12);
    float centre[3] = {0, 0, 0};
    for (int v = 0; v < mesh->vertex_count; ++v)
        for (int k = 0; k < 3; ++k)
            centre[k] += mesh->positions[v][k] / (float)mesh->vertex_count;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        float outward = 0, length = 0;
        for (int k = 0; k < 3; ++k) {
            outward += (mesh->positions[v][k] - centre[k]) * mesh->normals[v][k];
            length += mesh->normals[v][k] * mesh->normals[v][k];
        }
        CHECK(outward > 0.0f);
        CHECK_NEAR(length, 1.0, 1e-5);
    }
    /* Its corners are at +-32 in every axis. */
    for (int v = 0; v < mesh->vertex_count; ++v)
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(fabs(mesh->positions[v][k]), 32.0, 1e-3);
    model_free(m);
}

static void test_texture_resolution(void)
{
    const char *folder = MARIONETTE_BUILD_DIR "/md5_texture_test";
    char command[1024];
    snprintf(command, sizeof command, "mkdir -p '%s/sub'", folder);
    CHECK(system(command) == 0);
    char model_path[512], image[512], out[512];
    snprintf(model_path, sizeof model_path, "%s/guard.md5mesh", folder);
    snprintf(image, sizeof image, "%s/guard.tga", folder);
    test_write_file(image, "not really an image");
    snprintf(image, sizeof image, "%s/sub/skin.png", folder);
    test_write_file(image, "not really an image");

    CHECK(md5_resolve_texture(model_path, "C:\\models\\guard.tga", out, sizeof out, NULL));
    CHECK_STR_CONTAINS(out, "md5_texture_test/guard.tga");
    CHECK(md5_resolve_texture(model_path, "/home/artist/guard.tga", out, sizeof out, NULL));
    CHECK_STR_CONTAINS(out, "md5_texture_test/guard.tga");
    CHECK(md5_resolve_texture(model_path, "models/characters/guard", out, sizeof out, NULL)); /* no extension */
    CHECK_STR_CONTAINS(out, "md5_texture_test/guard.tga");
    CHECK(md5_resolve_texture(model_path, "sub/skin.dds", out, sizeof out, NULL)); /* extension swapped */
    CHECK_STR_CONTAINS(out, "md5_texture_test/sub/skin.png");
    CHECK(md5_resolve_texture(model_path, "sub\\skin", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(model_path, "", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(model_path, "nothing_here", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(model_path, "sub/", out, sizeof out, NULL));
    char tiny[8];
    CHECK(!md5_resolve_texture(model_path, "guard.tga", tiny, sizeof tiny, NULL));
    /* A relative shader path never resolves against the working directory. */
    test_write_file("only_in_working_directory.tga", "not really an image");
    CHECK(!md5_resolve_texture(model_path, "only_in_working_directory.tga", out, sizeof out, NULL));
    remove("only_in_working_directory.tga");

    /* And through the loader: texture_path is filled in. */
    test_write_file(model_path, two_joint_mesh);
    model *m = NULL;
    diag err;
    char text[4096];
    snprintf(text, sizeof text, "%s", two_joint_mesh);
    char *shader = strstr(text, "missing_texture\"");
    memcpy(shader, "sub\\skin.jpg\"   ", 16);
    test_write_file(model_path, text);
    CHECK(loader_load_md5_model(model_path, &m, &err, NULL));
    CHECK(m && m->meshes[0].texture_path);
    CHECK_STR_CONTAINS(m ? m->meshes[0].texture_path : NULL, "sub/skin.png");
    model_free(m);
}

/* A symbolic link inside a searched folder that leads out of it (a file link, or a folder link on the way)
 * is not followed, and is reported; a link that stays inside is fine. */
static void test_texture_search_refuses_links_out(void)
{
    char root[512], models[600], textures[600], mesh_path[700], path[900], target[900], out[900];
    CHECK(test_make_temp_folder(root, sizeof root, "md5_texture_links"));
    snprintf(models, sizeof models, "%s/models", root);
    snprintf(textures, sizeof textures, "%s/textures", root);
    snprintf(mesh_path, sizeof mesh_path, "%s/guard.md5mesh", models);
    snprintf(path, sizeof path, "%s/secret", root);
    CHECK(mkdir(models, 0700) == 0 && mkdir(textures, 0700) == 0 && mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/secret/secret.png", root);
    test_write_file(path, "not really an image");
    snprintf(path, sizeof path, "%s/inside.png", models);
    test_write_file(path, "not really an image");
    const char *links[][2] = {
        {"/secret/secret.png", "/models/evil.png"},   /* a file link out */
        {"/secret", "/models/sub"},                   /* a folder link out: "sub/secret.png" */
        {"/secret/secret.png", "/textures/evil.png"}, /* the same in a textures folder */
        {"/models/inside.png", "/models/alias.png"},  /* a link that stays inside */
    };
    for (size_t i = 0; i < sizeof links / sizeof *links; ++i) {
        snprintf(target, sizeof target, "%s%s", root, links[i][0]);
        snprintf(path, sizeof path, "%s%s", root, links[i][1]);
        CHECK(symlink(target, path) == 0);
    }

    diag_list warnings = {0};
    CHECK(!md5_resolve_texture(mesh_path, "evil.png", out, sizeof out, &warnings));
    CHECK(warnings.total == 1); /* tried at steps 2 and 3, reported once */
    if (warnings.count > 0) {
        CHECK_STR_CONTAINS(warnings.items[0].file, "/models/evil.png");
        CHECK_STR_CONTAINS(warnings.items[0].message, "leads out of the folder searched");
    }
    diag_list_free(&warnings);
    CHECK(!md5_resolve_texture(mesh_path, "sub/secret.png", out, sizeof out, &warnings));
    CHECK(warnings.total == 1);
    if (warnings.count > 0)
        CHECK_STR_CONTAINS(warnings.items[0].file, "/models/sub/secret.png");
    diag_list_free(&warnings);
    CHECK(!md5_find_texture_in_folder(textures, "evil", out, sizeof out, &warnings));
    CHECK(warnings.total == 1);
    if (warnings.count > 0)
        CHECK_STR_CONTAINS(warnings.items[0].message, "leads out of the folder searched");
    diag_list_free(&warnings);
    CHECK(md5_resolve_texture(mesh_path, "alias.png", out, sizeof out, &warnings));
    CHECK_STR_CONTAINS(out, "/models/alias.png");
    CHECK(warnings.total == 0);
    /* The mesh's folder reached through a link of its own is still its folder. */
    snprintf(path, sizeof path, "%s/models_link", root);
    CHECK(symlink(models, path) == 0);
    snprintf(mesh_path, sizeof mesh_path, "%s/models_link/guard.md5mesh", root);
    CHECK(md5_resolve_texture(mesh_path, "inside.png", out, sizeof out, &warnings));
    CHECK(!md5_resolve_texture(mesh_path, "evil.png", out, sizeof out, &warnings));
    CHECK(warnings.total == 1);
    diag_list_free(&warnings);

    /* Through the reader: the refusal is a warning at the shader's line, and the mesh has no texture. */
    char text[4096];
    snprintf(text, sizeof text, "%s", two_joint_mesh);
    char *shader = strstr(text, "missing_texture");
    memcpy(shader, "evil.png\"       ", 16); /* padded with spaces to the old length */
    test_write_file(mesh_path, text);
    model *m = NULL;
    diag err;
    CHECK(loader_load_md5_model(mesh_path, &m, &err, &warnings));
    CHECK(m && !m->meshes[0].texture_path);
    CHECK(warnings.total == 1);
    if (warnings.count == 1) {
        CHECK(strcmp(warnings.items[0].file, mesh_path) == 0);
        CHECK(warnings.items[0].line == 10);
        CHECK_STR_CONTAINS(warnings.items[0].message, "leads out of the folder searched");
    }
    diag_list_free(&warnings);
    model_free(m);
}

/* Every shader form the texture search meets, each found at the step it belongs to and no earlier one, and
 * every way out of the mesh's folder refused even when the file it names exists. */
static void test_texture_search_steps(void)
{
    char root[512], models[600], sibling[600], mesh_path[700], path[900], out[900];
    CHECK(test_make_temp_folder(root, sizeof root, "md5_texture_search"));
    snprintf(models, sizeof models, "%s/models", root);
    snprintf(sibling, sizeof sibling, "%s/secret", root);
    snprintf(mesh_path, sizeof mesh_path, "%s/guard.md5mesh", models);
    char command[4096];
    snprintf(command, sizeof command, "mkdir -p '%s/models/players/level0' '%s' '%s/f:/md5viewer' '%s/textures'",
             models, sibling, models, root);
    CHECK(system(command) == 0);
    const char *files[] = {
        "models/models/players/level0/dretch.tga", /* step 2: the game-relative path, extension appended */
        "models/dretch.png",                       /* step 3: its file name */
        "models/guard1_body.png",
        "models/guard1_body.tga",
        "models/f:/md5viewer/guard1_body.jpg",     /* a Windows path read as relative would find this */
        "models/bope.tga",
        "secret/secret.png",
        "models/abs.png",
        "secret/abs.png",                          /* exists at the absolute path a shader names */
        "textures/only_here.bmp",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        snprintf(path, sizeof path, "%s/%s", root, files[i]);
        test_write_file(path, "not really an image");
    }
    /* A file outside every folder searched, at an absolute path that exists. */
    char outside[600];
    snprintf(outside, sizeof outside, "%s/secret/outside.png", root);
    test_write_file(outside, "not really an image");

    /* Step 2 before step 3; a folder of the same name as the stem is not an image. */
    CHECK(md5_resolve_texture(mesh_path, "models/players/level0/dretch", out, sizeof out, NULL));
    CHECK_STR_CONTAINS(out, "/models/models/players/level0/dretch.tga");
    snprintf(path, sizeof path, "%s/models/players/level0/dretch.tga", models);
    CHECK(remove(path) == 0);
    CHECK(md5_resolve_texture(mesh_path, "models/players/level0/dretch", out, sizeof out, NULL));
    CHECK(strcmp(out + strlen(models), "/dretch.png") == 0);
    /* As written before any other extension; without one, .tga first. */
    CHECK(md5_resolve_texture(mesh_path, "guard1_body.png", out, sizeof out, NULL));
    CHECK(strcmp(out + strlen(models), "/guard1_body.png") == 0);
    CHECK(md5_resolve_texture(mesh_path, "guard1_body", out, sizeof out, NULL));
    CHECK(strcmp(out + strlen(models), "/guard1_body.tga") == 0);
    /* A drive letter: never a folder, only its file name (as written first: the .tga). */
    CHECK(md5_resolve_texture(mesh_path, "f:\\md5viewer\\guard1_body.tga", out, sizeof out, NULL));
    CHECK(strcmp(out + strlen(models), "/guard1_body.tga") == 0);
    CHECK(!md5_resolve_texture(mesh_path, "f:\\md5viewer\\guard1_body_nowhere.jpg", out, sizeof out, NULL));
    CHECK(md5_resolve_texture(mesh_path, "F:guard1_body.png", out, sizeof out, NULL));
    CHECK(strcmp(out + strlen(models), "/guard1_body.png") == 0);
    /* "//bope.tga" is absolute: its file name is found in the mesh's folder. */
    CHECK(md5_resolve_texture(mesh_path, "//bope.tga", out, sizeof out, NULL));
    CHECK(strcmp(out + strlen(models), "/bope.tga") == 0);
    /* An absolute path that exists is not opened; its file name in the mesh's folder is (or nothing). */
    CHECK(!md5_resolve_texture(mesh_path, outside, out, sizeof out, NULL));
    snprintf(path, sizeof path, "/%s", outside); /* "//..." */
    CHECK(!md5_resolve_texture(mesh_path, path, out, sizeof out, NULL));
    snprintf(path, sizeof path, "%s/secret/abs.png", root);
    CHECK(md5_resolve_texture(mesh_path, path, out, sizeof out, NULL));
    CHECK(strcmp(out, "") != 0 && strcmp(out + strlen(models), "/abs.png") == 0);
    /* ".." never leaves the folder, however it is spelt. */
    CHECK(!md5_resolve_texture(mesh_path, "../secret/secret.png", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(mesh_path, "..\\secret\\secret.png", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(mesh_path, "players/../../secret/secret", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(mesh_path, "..", out, sizeof out, NULL));
    CHECK(!md5_resolve_texture(mesh_path, "", out, sizeof out, NULL));
    /* The textures folder is not the model's business. */
    CHECK(!md5_resolve_texture(mesh_path, "only_here", out, sizeof out, NULL));

    /* Step 3 in another folder: the file name only, never the path as written. */
    snprintf(path, sizeof path, "%s/textures", root);
    CHECK(md5_find_texture_in_folder(path, "c:\\art\\only_here.tga", out, sizeof out, NULL));
    CHECK_STR_CONTAINS(out, "/textures/only_here.bmp");
    CHECK(md5_find_texture_in_folder(path, "only_here", out, sizeof out, NULL));
    CHECK(!md5_find_texture_in_folder(path, "../secret/secret.png", out, sizeof out, NULL));
    CHECK(!md5_find_texture_in_folder(path, "", out, sizeof out, NULL));
    CHECK(!md5_find_texture_in_folder("", "guard1_body.png", out, sizeof out, NULL));

    /* Through the loader, the Windows form from a real exporter. */
    char text[4096];
    snprintf(text, sizeof text, "%s", two_joint_mesh);
    char *shader = strstr(text, "\"missing_texture\"");
    const char windows[] = "\"f:\\md5viewer\\bope.jpg\"";
    size_t old_length = strlen("\"missing_texture\"");
    memmove(shader + strlen(windows), shader + old_length, strlen(shader + old_length) + 1);
    memcpy(shader, windows, strlen(windows));
    test_write_file(mesh_path, text);
    model *m = NULL;
    diag err;
    CHECK(loader_load_md5_model(mesh_path, &m, &err, NULL));
    CHECK(m && strcmp(m->meshes[0].shader, "f:\\md5viewer\\bope.jpg") == 0);
    CHECK(m && m->meshes[0].texture_path && strcmp(m->meshes[0].texture_path + strlen(models), "/bope.tga") == 0);
    model_free(m);
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    CHECK(system(command) == 0);
}

static void test_refusals(void)
{
    diag err = {0};
    model *m = NULL;
    CHECK(!loader_parse_md5_model("", 0, "x.md5mesh", &m, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "empty file");
    CHECK(err.line == 0);
    CHECK(!loader_load_md5_model(MARIONETTE_TEST_DATA "/no/such/file.md5mesh", &m, &err, NULL));
    CHECK_STR_CONTAINS(err.file, "file.md5mesh");
    const char *anim = "MD5Version 10\ncommandline \"\"\nnumFrames 1\n";
    CHECK(!loader_parse_md5_model(anim, strlen(anim), "x.md5mesh", &m, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "not an .md5mesh");
    CHECK(err.line == 3);
    /* Every prefix of a valid mesh is refused cleanly, or accepted whole, or (cut exactly between the
     * joints and the mesh blocks: indistinguishable from a lying numMeshes) accepted with a warning. */
    size_t length = strlen(two_joint_mesh);
    for (size_t n = 0; n < length; ++n) {
        char *prefix = malloc(n ? n : 1);
        memcpy(prefix, two_joint_mesh, n);
        diag_list warnings = {0};
        bool ok = loader_parse_md5_model(prefix, n, "prefix.md5mesh", &m, &err, &warnings);
        CHECK(!ok || n >= length - 1 || (warnings.total == 1 && strstr(warnings.items[0].message, "numMeshes 1 but only 0")));
        if (!ok)
            CHECK(err.line >= (n ? 1 : 0) && err.message[0] != 0);
        model_free(ok ? m : NULL);
        diag_list_free(&warnings);
        free(prefix);
    }
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_skeleton_and_inverse_bind);
        RUN(test_bind_positions_and_influences);
        RUN(test_texture_resolution);
        RUN(test_texture_search_steps);
        RUN(test_texture_search_refuses_links_out);
        RUN(test_refusals);
    }
    if (part == TEST_PART_ASSIMP)
        RUN(test_cube_normals_point_outward);
    return check_report();
}
