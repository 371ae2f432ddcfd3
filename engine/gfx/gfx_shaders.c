/* gfx_shaders: GLSL sources, see gfx_shaders.h. */
#include "gfx_shaders.h"

/* What every skinned vertex shader ends with, whichever way it skinned: the outputs the lit fragment shader
 * reads, and `place`, which puts an object-space vertex into the world and on screen. Rigid world matrices
 * with uniform scale: normalizing the turned normal undoes the scale. `place_tangent` (after place) gives
 * the normal map its frame; without it the tangent is zero and the fragment shader draws no normal map. */
#define GFX_PLACEMENT                                                       \
    "uniform mat4 view_projection;\n"                                       \
    "out vec3 world_position;\n"                                            \
    "out vec3 world_normal;\n"                                              \
    "out vec4 world_tangent;\n"                                             \
    "out vec2 texture_uv;\n"                                                \
    "out vec4 tint;\n"                                                      \
    "void place(mat4 world, vec3 object_position, vec3 object_normal)\n"    \
    "{\n"                                                                   \
    "    vec4 world_point = world * vec4(object_position, 1.0);\n"          \
    "    world_position = world_point.xyz;\n"                               \
    "    world_normal = normalize(mat3(world) * object_normal);\n"          \
    "    world_tangent = vec4(0.0);\n"                                      \
    "    texture_uv = uv;\n"                                                \
    "    gl_Position = view_projection * world_point;\n"                    \
    "}\n"                                                                   \
    "void place_tangent(mat4 world, vec3 t, float w)\n"                   \
    "{\n"                                                                   \
    "    t = mat3(world) * t;\n"                                            \
    "    world_tangent = dot(t, t) > 1e-12 ? vec4(normalize(t), w) : vec4(0.0);\n" \
    "}\n"

/* The batched paths' per-instance data (GFX_INSTANCE_TEXELS texels each in `instances`): the world matrix
 * and tint of this draw's instance, and the texel where the rest of its data starts. */
#define GFX_INSTANCE_FETCH                                                                                  \
    "uniform samplerBuffer instances;\n"                                                                   \
    "uniform int first_instance;\n"                                                                        \
    "int instance_texel()\n"                                                                               \
    "{\n"                                                                                                  \
    "    return 6 * (first_instance + gl_InstanceID);\n"                                                   \
    "}\n"                                                                                                  \
    "mat4 instance_world()\n"                                                                              \
    "{\n"                                                                                                  \
    "    int t = instance_texel();\n"                                                                      \
    "    return mat4(texelFetch(instances, t), texelFetch(instances, t + 1), texelFetch(instances, t + 2),\n" \
    "                texelFetch(instances, t + 3));\n"                                                     \
    "}\n"

/* Skinning with 4 influences, linear blend or dual quaternions as each instance says. Every palette of
 * the frame is in one texture buffer, so any number of instances with any joint count share one draw call
 * and no per-program uniform limit applies: a linear instance's joint is 4 texels there (its skin
 * matrix's columns), a dual-quaternion instance's 2 (the real part, then the dual), from the instance's
 * first palette texel. Both are summed in the order pose_skin.c and pose_dq.c sum, so GPU and CPU agree to
 * rounding. Linear: skin matrices are rigid, so their 3x3 part turns normals directly; opposing influences
 * can cancel a normal out, and the bind normal is then the least surprising one. Dual quaternions: each
 * influence's, negated when its real part points away from the first weighted one's (q and -q are one
 * rotation, but their sum would cancel), summed by weight and normalised: a rigid motion again, so a
 * twisted joint turns its flesh instead of pinching it. (The text stays under the 4095 characters C
 * promises a string literal, so these words are here and not in it.) */
const char gfx_skinned_vertex_head[] =
    GFX_SKINNED_VERTEX_INPUTS
    "\n"
    GFX_PLACEMENT
    GFX_INSTANCE_FETCH;

const char gfx_skinned_vertex_source[] =
    "uniform samplerBuffer palettes;\n"
    "out vec3 " GFX_CAPTURED_POSITION ";\n"
    "out vec3 " GFX_CAPTURED_NORMAL ";\n"
    "out vec4 " GFX_CAPTURED_TANGENT ";\n"
    "vec3 skinned_tangent;\n"
    "mat4 skin_matrix(int first_texel, int joint)\n"
    "{\n"
    "    int texel = first_texel + 4 * joint;\n"
    "    return mat4(texelFetch(palettes, texel), texelFetch(palettes, texel + 1),\n"
    "                texelFetch(palettes, texel + 2), texelFetch(palettes, texel + 3));\n"
    "}\n"
    "void skin_linear(int first_texel)\n"
    "{\n"
    "    mat4 skin = weights.x * skin_matrix(first_texel, joints.x)\n"
    "              + weights.y * skin_matrix(first_texel, joints.y)\n"
    "              + weights.z * skin_matrix(first_texel, joints.z)\n"
    "              + weights.w * skin_matrix(first_texel, joints.w);\n"
    "    " GFX_CAPTURED_POSITION " = (skin * vec4(bind_position, 1.0)).xyz;\n"
    "    vec3 normal = mat3(skin) * bind_normal;\n"
    "    " GFX_CAPTURED_NORMAL " = dot(normal, normal) > 1e-12 ? normalize(normal) : bind_normal;\n"
    "    vec3 t = mat3(skin) * bind_tangent.xyz, n = " GFX_CAPTURED_NORMAL ";\n"
    "    t -= n * dot(n, t);\n"
    "    if (!(dot(t, t) > 1e-20))\n"
    "        t = bind_tangent.xyz - n * dot(n, bind_tangent.xyz);\n"
    "    skinned_tangent = dot(t, t) > 1e-20 ? normalize(t) : bind_tangent.xyz;\n"
    "}\n"
    "vec3 rotate(vec4 q, vec3 v)\n"
    "{\n"
    "    return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);\n"
    "}\n"
    "void skin_dual_quaternion(int first_texel)\n"
    "{\n"
    "    ivec4 texels = first_texel + 2 * joints;\n"
    "    vec4 real_x = texelFetch(palettes, texels.x), real_y = texelFetch(palettes, texels.y);\n"
    "    vec4 real_z = texelFetch(palettes, texels.z), real_w = texelFetch(palettes, texels.w);\n"
    "    vec4 pivot = weights.x != 0.0 ? real_x : weights.y != 0.0 ? real_y : weights.z != 0.0 ? real_z : real_w;\n"
    "    vec4 dots = vec4(dot(real_x, pivot), dot(real_y, pivot), dot(real_z, pivot), dot(real_w, pivot));\n"
    "    vec4 signed_weights = mix(weights, -weights, lessThan(dots, vec4(0.0)));\n"
    "    vec4 real = signed_weights.x * real_x + signed_weights.y * real_y + signed_weights.z * real_z\n"
    "              + signed_weights.w * real_w;\n"
    "    vec4 dual = signed_weights.x * texelFetch(palettes, texels.x + 1)\n"
    "              + signed_weights.y * texelFetch(palettes, texels.y + 1)\n"
    "              + signed_weights.z * texelFetch(palettes, texels.z + 1)\n"
    "              + signed_weights.w * texelFetch(palettes, texels.w + 1);\n"
    "    float length2 = dot(real, real);\n"
    "    if (!(length2 > 1e-12)) {\n"
    "        " GFX_CAPTURED_POSITION " = bind_position;\n"
    "        " GFX_CAPTURED_NORMAL " = bind_normal;\n"
    "        skinned_tangent = bind_tangent.xyz;\n"
    "        return;\n"
    "    }\n"
    "    float inverse = 1.0 / sqrt(length2);\n"
    "    real *= inverse;\n"
    "    dual *= inverse;\n"
    "    vec3 translation = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));\n"
    "    " GFX_CAPTURED_POSITION " = rotate(real, bind_position) + translation;\n"
    "    " GFX_CAPTURED_NORMAL " = rotate(real, bind_normal);\n"
    "    skinned_tangent = rotate(real, bind_tangent.xyz);\n"
    "}\n"
    "void main()\n"
    "{\n"
    "    tint = texelFetch(instances, instance_texel() + 4);\n"
    "    vec4 palette_place = texelFetch(instances, instance_texel() + 5);\n"
    "    int palette_texel = 4 * int(palette_place.x);\n"
    "    if (palette_place.z != 0.0)\n"
    "        skin_dual_quaternion(palette_texel);\n"
    "    else\n"
    "        skin_linear(palette_texel);\n"
    "    mat4 world = instance_world();\n"
    "    " GFX_CAPTURED_TANGENT " = vec4(skinned_tangent, bind_tangent.w);\n"
    "    place(world, " GFX_CAPTURED_POSITION ", " GFX_CAPTURED_NORMAL ");\n"
    "    place_tangent(world, skinned_tangent, bind_tangent.w);\n"
    "}\n";

/* How much of the directional light reaches a point: 1 lit, 0 in shadow. The point is pushed out along
 * its normal by about a shadow-map texel before the lookup (normal offset), which keeps lit surfaces from
 * shadowing themselves (acne) without detaching shadows from feet. Four bilinear hardware-compared taps
 * half a texel apart (sixteen texels, a tent three texels wide) soften the edge over about two screen
 * pixels: the map's texels are fitted to about one pixel each (gfx_shadow_fit.h). Outside the part of the
 * map this frame drew (shadow_extent) is lit. */
#define GFX_SHADOW_LOOKUP                                                                              \
    "uniform sampler2DShadow shadow_map;\n"                                                            \
    "uniform mat4 light_view_projection;\n"                                                            \
    "uniform float shadow_texel;\n"                                                                    \
    "uniform vec2 shadow_extent;\n"                                                                    \
    "uniform float shadow_normal_offset;\n"                                                            \
    "uniform bool shadows_on;\n"                                                                       \
    "float light_visibility(vec3 point, vec3 normal)\n"                                                \
    "{\n"                                                                                              \
    "    if (!shadows_on)\n"                                                                           \
    "        return 1.0;\n"                                                                            \
    "    vec4 light_clip = light_view_projection * vec4(point + normal * shadow_normal_offset, 1.0);\n"  \
    "    vec3 map = light_clip.xyz / light_clip.w * 0.5 + 0.5;\n"                                      \
    "    if (any(lessThan(map, vec3(0.0))) || any(greaterThan(map, vec3(shadow_extent, 1.0))))\n"     \
    "        return 1.0;\n"                                                                            \
    "    float half_texel = 0.5 * shadow_texel;\n"                                                     \
    "    return 0.25 * (texture(shadow_map, vec3(map.xy + vec2(-half_texel, -half_texel), map.z))\n"   \
    "                 + texture(shadow_map, vec3(map.xy + vec2(half_texel, -half_texel), map.z))\n"    \
    "                 + texture(shadow_map, vec3(map.xy + vec2(-half_texel, half_texel), map.z))\n"    \
    "                 + texture(shadow_map, vec3(map.xy + vec2(half_texel, half_texel), map.z)));\n"   \
    "}\n"

/* The ground outside every shadow's reach (gfx_shadow_draw_ground) is drawn without the lookup. */
#define GFX_NO_SHADOW_LOOKUP                                                                           \
    "float light_visibility(vec3 point, vec3 normal)\n"                                                \
    "{\n"                                                                                              \
    "    return 1.0;\n"                                                                                \
    "}\n"

/* Blinn-Phong: one directional light plus ambient, over texture times tint; the light is shadowed. */
const char gfx_skinned_fragment_source[] =
    "#version 330 core\n"
    GFX_SHADOW_LOOKUP
    "in vec3 world_position;\n"
    "in vec3 world_normal;\n"
    "in vec4 world_tangent;\n"
    "in vec2 texture_uv;\n"
    "in vec4 tint;\n"
    "\n"
    "uniform sampler2D albedo;\n"
    "uniform sampler2D normal_map;\n"
    "uniform sampler2D specular_map;\n"
    "uniform bool use_normal_map;\n"
    "uniform bool use_specular_map;\n"
    "uniform vec3 camera_position;\n"
    "uniform vec3 light_direction;\n"
    "uniform vec3 light_color;\n"
    "uniform vec3 ambient_color;\n"
    "\n"
    "out vec4 fragment_color;\n"
    "\n"
    "void main()\n"
    "{\n"
    "    vec3 normal = normalize(world_normal);\n"
    "    if (use_normal_map && world_tangent.w != 0.0) {\n"
    "        vec3 leaning = (texture(normal_map, texture_uv).rgb * 255.0 - 128.0) / 127.0;\n"
    "        if (any(greaterThan(abs(leaning.xy), vec2(0.5 / 127.0)))) { /* 128 128 255: the normal itself */\n"
    "            vec3 tangent = normalize(world_tangent.xyz - normal * dot(normal, world_tangent.xyz));\n"
    "            vec3 bitangent = (world_tangent.w < 0.0 ? -1.0 : 1.0) * cross(normal, tangent);\n"
    "            normal = normalize(tangent * leaning.x + bitangent * leaning.y + normal * leaning.z);\n"
    "        }\n"
    "    }\n"
    "    vec3 to_light = -normalize(light_direction);\n"
    "    vec3 to_camera = normalize(camera_position - world_position);\n"
    "    vec3 halfway = normalize(to_light + to_camera);\n"
    "    vec4 base = texture(albedo, texture_uv) * tint;\n"
    "    float diffuse = max(dot(normal, to_light), 0.0);\n"
    "    float lit = diffuse > 0.0 ? light_visibility(world_position, normal) : 0.0;\n"
    "    diffuse *= lit;\n"
    "    float strength = use_specular_map ? texture(specular_map, texture_uv).r : 0.25;\n"
    "    float specular = diffuse > 0.0 ? strength * lit * pow(max(dot(normal, halfway), 0.0), 32.0) : 0.0;\n"
    "    fragment_color = vec4(base.rgb * (ambient_color + light_color * diffuse) + light_color * specular,\n"
    "                          base.a);\n"
    "}\n";

/* The flat ground: a square on y = 0 around the origin, given as (x, z) corners. */
const char gfx_ground_vertex_source[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 corner;\n"
    "uniform mat4 view_projection;\n"
    "out vec3 world_position;\n"
    "out vec3 surface_normal;\n"
    "void main()\n"
    "{\n"
    "    world_position = vec3(corner.x, 0.0, corner.y);\n"
    "    surface_normal = vec3(0.0, 1.0, 0.0);\n"
    "    gl_Position = view_projection * vec4(world_position, 1.0);\n"
    "}\n";

/* Uneven ground (gfx_set_ground): world positions and normals as given. */
const char gfx_ground_mesh_vertex_source[] =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 1) in vec3 normal;\n"
    "uniform mat4 view_projection;\n"
    "out vec3 world_position;\n"
    "out vec3 surface_normal;\n"
    "void main()\n"
    "{\n"
    "    world_position = position;\n"
    "    surface_normal = normal;\n"
    "    gl_Position = view_projection * vec4(position, 1.0);\n"
    "}\n";

/* Lines every metre (seen from above: across x and z), a pixel or so wide at any distance (fwidth),
 * darker axes through the origin, faded with distance so the horizon does not shimmer; lit by the
 * surface's normal (straight up on the flat ground, whose picture is then exactly as before). Shadowed
 * where shadows may fall, lit elsewhere. */
#define GFX_GROUND_FRAGMENT(lookup)                                                                    \
    "#version 330 core\n"                                                                             \
    lookup                                                                                             \
    "in vec3 world_position;\n"                                                                       \
    "in vec3 surface_normal;\n"                                                                       \
    "uniform vec3 camera_position;\n"                                                                 \
    "uniform vec3 light_direction;\n"                                                                 \
    "uniform vec3 light_color;\n"                                                                     \
    "uniform vec3 ambient_color;\n"                                                                   \
    "uniform vec4 clear_color;\n"                                                                     \
    "out vec4 fragment_color;\n"                                                                      \
    "void main()\n"                                                                                   \
    "{\n"                                                                                             \
    "    vec2 cell = world_position.xz;\n"                                                            \
    "    vec2 per_pixel = 1.0 / max(fwidth(cell), vec2(1e-6));\n"                                     \
    "    vec2 to_line = abs(fract(cell - 0.5) - 0.5) * per_pixel;\n"                                  \
    "    float line = 1.0 - clamp(min(to_line.x, to_line.y), 0.0, 1.0);\n"                           \
    "    vec2 to_axis = abs(cell) * per_pixel;\n"                                                     \
    "    float axis = 1.0 - clamp(min(to_axis.x, to_axis.y) * 0.5, 0.0, 1.0);\n"                     \
    "    vec3 normal = normalize(surface_normal);\n"                                                 \
    "    float diffuse = max(dot(normal, -normalize(light_direction)), 0.0);\n"                        \
    "    diffuse *= light_visibility(world_position, normal);\n"                                       \
    "    vec3 floor_color = vec3(0.55, 0.56, 0.52) * (ambient_color + light_color * diffuse);\n"      \
    "    vec3 color = mix(floor_color, floor_color * 0.55, line);\n"                                  \
    "    color = mix(color, vec3(0.15, 0.15, 0.18), axis);\n"                                         \
    "    /* The square of the distance over 40 m, clamped: the fade's square without a square root. */\n" \
    "    vec3 away = world_position - camera_position;\n"                                             \
    "    float fade = clamp(dot(away, away) * (1.0 / 1600.0), 0.0, 1.0);\n"                           \
    "    fragment_color = vec4(mix(color, clear_color.rgb, fade), 1.0);\n"                            \
    "}\n"

const char gfx_ground_fragment_source[] = GFX_GROUND_FRAGMENT(GFX_SHADOW_LOOKUP);
const char gfx_ground_lit_fragment_source[] = GFX_GROUND_FRAGMENT(GFX_NO_SHADOW_LOOKUP);

/* The naive path's vertex shader (gfx_bench.h), the classic tutorial skinning: the palette,
 * world matrix and tint are uniforms set per instance before its own draw call. The skinning and lighting
 * arithmetic is the default shader's above, in the same order, so both draw the same picture;
 * the fragment shader is shared. */
#define GFX_NAIVE_STRINGIFY_(x) #x
#define GFX_NAIVE_STRINGIFY(x) GFX_NAIVE_STRINGIFY_(x)
const char gfx_naive_vertex_source[] =
    GFX_SKINNED_VERTEX_INPUTS
    "\n"
    "uniform mat4 bones[" GFX_NAIVE_STRINGIFY(GFX_NAIVE_MAX_JOINTS_TEXT) "];\n"
    GFX_PLACEMENT
    "uniform mat4 world;\n"
    "uniform vec4 instance_tint;\n"
    "\n"
    "void main()\n"
    "{\n"
    "    tint = instance_tint;\n"
    "    mat4 skin = weights.x * bones[joints.x]\n"
    "              + weights.y * bones[joints.y]\n"
    "              + weights.z * bones[joints.z]\n"
    "              + weights.w * bones[joints.w];\n"
    "    vec3 skinned_position = (skin * vec4(bind_position, 1.0)).xyz;\n"
    "    vec3 normal = mat3(skin) * bind_normal;\n"
    "    vec3 skinned_normal = dot(normal, normal) > 1e-12 ? normalize(normal) : bind_normal;\n"
    "    place(world, skinned_position, skinned_normal);\n"
    "}\n";

/* The CPU skinning path (gfx_frame_desc.cpu_skinning): pose_skin_cpu has already skinned every instance's
 * vertices into one texture buffer, so this shader only fetches its vertex there (by gl_VertexID, the
 * index being drawn) and places it in the world exactly as the skinning shader does after skinning. Same
 * outputs, same fragment shader, same picture. */
const char gfx_cpu_skinned_vertex_source[] =
    GFX_SKINNED_VERTEX_INPUTS
    "\n"
    GFX_PLACEMENT
    GFX_INSTANCE_FETCH
    "uniform samplerBuffer skinned_vertices;\n"
    "uniform int part_first_vertex;\n"
    "uniform int part_vertex_count;\n"
    "uniform bool captured_layout;\n"
    "\n"
    "vec3 fetch3(int first)\n"
    "{\n"
    "    return vec3(texelFetch(skinned_vertices, first).r, texelFetch(skinned_vertices, first + 1).r,\n"
    "                texelFetch(skinned_vertices, first + 2).r);\n"
    "}\n"
    "\n"
    "vec4 fetch4(int first)\n"
    "{\n"
    "    return vec4(fetch3(first), texelFetch(skinned_vertices, first + 3).r);\n"
    "}\n"
    "\n"
    "void main()\n"
    "{\n"
    "    tint = texelFetch(instances, instance_texel() + 4);\n"
    "    vec3 object_position, object_normal;\n"
    "    vec4 object_tangent;\n"
    "    if (captured_layout) {\n"
    "        /* Skinned once this frame by transform feedback: this draw's instances one after the other\n"
    "         * from part_first_vertex, each vertex its position, normal and tangent frame. */\n"
    "        int first = 10 * (part_first_vertex + gl_InstanceID * part_vertex_count + gl_VertexID);\n"
    "        object_position = fetch3(first);\n"
    "        object_normal = fetch3(first + 3);\n"
    "        object_tangent = fetch4(first + 6);\n"
    "    } else {\n"
    "        /* Skinned on the CPU: a block per instance and part, its positions, normals, tangent frames. */\n"
    "        int block = 10 * (floatBitsToInt(texelFetch(instances, instance_texel() + 5).y) + part_first_vertex);\n"
    "        object_position = fetch3(block + 3 * gl_VertexID);\n"
    "        object_normal = fetch3(block + 3 * (part_vertex_count + gl_VertexID));\n"
    "        object_tangent = fetch4(block + 6 * part_vertex_count + 4 * gl_VertexID);\n"
    "    }\n"
    "    mat4 world = instance_world();\n"
    "    place(world, object_position, object_normal);\n"
    "    place_tangent(world, object_tangent.xyz, object_tangent.w);\n"
    "}\n";

/* The shadow map's depth pass writes depth only. */
const char gfx_depth_fragment_source[] =
    "#version 330 core\n"
    "void main()\n"
    "{\n"
    "}\n";

/* Normals view: each skinned vertex (drawn as a point by either skinning path's vertex shader) becomes a
 * short line along its world normal. */
const char gfx_normals_geometry_source[] =
    "#version 330 core\n"
    "layout(points) in;\n"
    "layout(line_strip, max_vertices = 6) out;\n"
    "in vec3 world_position[];\n"
    "in vec3 world_normal[];\n"
    "in vec4 world_tangent[];\n"
    "uniform mat4 view_projection;\n"
    "uniform float normal_length;\n"
    "uniform vec4 line_color;\n"
    "uniform bool tangent_frames;\n"
    "out vec4 line_rgba;\n"
    "void line(vec3 direction, vec4 color)\n"
    "{\n"
    "    line_rgba = color;\n"
    "    gl_Position = view_projection * vec4(world_position[0], 1.0);\n"
    "    EmitVertex();\n"
    "    gl_Position = view_projection * vec4(world_position[0] + direction * normal_length, 1.0);\n"
    "    EmitVertex();\n"
    "    EndPrimitive();\n"
    "}\n"
    "void main()\n"
    "{\n"
    "    line(world_normal[0], line_color);\n"
    "    /* The tangent frame: the tangent red, the bitangent (w * normal x tangent) green. */\n"
    "    if (tangent_frames && world_tangent[0].w != 0.0) {\n"
    "        vec3 tangent = world_tangent[0].xyz;\n"
    "        line(tangent, vec4(1.0, 0.25, 0.2, 1.0));\n"
    "        line(world_tangent[0].w * cross(world_normal[0], tangent), vec4(0.3, 1.0, 0.3, 1.0));\n"
    "    }\n"
    "}\n";

const char gfx_normals_fragment_source[] =
    "#version 330 core\n"
    "in vec4 line_rgba;\n"
    "out vec4 fragment_color;\n"
    "void main()\n"
    "{\n"
    "    fragment_color = line_rgba;\n"
    "}\n";

/* Debug lines (skeletons, bounds boxes): world-space segments with a colour per vertex. */
const char gfx_lines_vertex_source[] =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 1) in vec4 color;\n"
    "uniform mat4 view_projection;\n"
    "out vec4 line_color;\n"
    "void main()\n"
    "{\n"
    "    line_color = color;\n"
    "    gl_Position = view_projection * vec4(position, 1.0);\n"
    "}\n";

const char gfx_lines_fragment_source[] =
    "#version 330 core\n"
    "in vec4 line_color;\n"
    "out vec4 fragment_color;\n"
    "void main()\n"
    "{\n"
    "    fragment_color = line_color;\n"
    "}\n";
