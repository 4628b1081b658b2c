"""GLSL 3.30 sources of the viewport's programs (matrices column-major, as GL expects).

Instanced programs read a per-instance ``in_model`` (mat4, model-to-world) and ``in_color``.
"""

BACKGROUND_VERTEX = """
#version 330
out float v_height;
void main() {
    vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);  // one triangle covering the screen
    v_height = corner.y;
    gl_Position = vec4(corner * 2.0 - 1.0, 1.0, 1.0);
}
"""

BACKGROUND_FRAGMENT = """
#version 330
uniform vec3 u_top;
uniform vec3 u_bottom;
in float v_height;
out vec4 f_color;
void main() {
    f_color = vec4(mix(u_bottom, u_top, clamp(v_height, 0.0, 1.0)), 1.0);
}
"""

SOLID_VERTEX = """
#version 330
uniform mat4 u_view;
uniform mat4 u_proj;
in vec3 in_pos;
in vec3 in_normal;
in mat4 in_model;
in vec3 in_color;
out vec3 v_normal;
out vec3 v_color;
void main() {
    mat3 normal_matrix = transpose(inverse(mat3(in_model)));
    v_normal = mat3(u_view) * (normal_matrix * in_normal);
    v_color = in_color;
    gl_Position = u_proj * u_view * in_model * vec4(in_pos, 1.0);
}
"""

# The viewport's one light, shared by bones and meshes: a view-space key light from the upper
# left, behind the eye, plus ambient and a little light facing the viewer.
SHADE = """
float shade(vec3 n) {
    vec3 key = normalize(vec3(-0.35, 0.6, 0.72));
    return 0.42 + 0.5 * max(dot(n, key), 0.0) + 0.13 * max(n.z, 0.0);
}
"""

SOLID_FRAGMENT = """
#version 330
in vec3 v_normal;
in vec3 v_color;
out vec4 f_color;
""" + SHADE + """
void main() {
    f_color = vec4(v_color * shade(normalize(v_normal)), 1.0);
}
"""

WIRE_VERTEX = """
#version 330
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_pull;  // fraction of the eye distance by which lines move toward the eye
in vec3 in_pos;
in mat4 in_model;
in vec3 in_color;
out vec3 v_color;
void main() {
    vec4 eye_pos = u_view * in_model * vec4(in_pos, 1.0);
    eye_pos.xyz *= 1.0 - u_pull;
    v_color = in_color;
    gl_Position = u_proj * eye_pos;
}
"""

WIRE_FRAGMENT = """
#version 330
in vec3 v_color;
out vec4 f_color;
void main() {
    f_color = vec4(v_color, 1.0);
}
"""

LINE_VERTEX = """
#version 330
uniform mat4 u_view;
uniform mat4 u_proj;
in vec3 in_pos;
in vec4 in_color;
in float in_dist;
out vec4 v_color;
out float v_dist;
out vec3 v_world;
void main() {
    v_color = in_color;
    v_dist = in_dist;
    v_world = in_pos;
    gl_Position = u_proj * u_view * vec4(in_pos, 1.0);
}
"""

LINE_FRAGMENT = """
#version 330
uniform float u_dash;         // dash period in metres along the line; 0 draws solid
uniform float u_fade_radius;  // alpha fades out toward this distance from the origin (XZ); 0 = none
in vec4 v_color;
in float v_dist;
in vec3 v_world;
out vec4 f_color;
void main() {
    if (u_dash > 0.0 && fract(v_dist / u_dash) >= 0.5) discard;
    float alpha = v_color.a;
    if (u_fade_radius > 0.0) alpha *= 1.0 - smoothstep(0.4 * u_fade_radius, u_fade_radius, length(v_world.xz));
    f_color = vec4(v_color.rgb, alpha);
}
"""

# Linear-blend skinning: each bone's skinning matrix (world @ inverse rest) is one row of an
# RGBA32F texture, 4 texels = its 4 columns, so any bone count fits (uniform arrays hold ~64).
SKIN_VERTEX = """
#version 330
uniform mat4 u_view;
uniform mat4 u_proj;
uniform sampler2D u_joints;
in vec3 in_pos;
in vec3 in_normal;
in vec4 in_joints;
in vec4 in_weights;
out vec3 v_normal;
mat4 joint_matrix(float joint) {
    int row = int(joint + 0.5);
    return mat4(texelFetch(u_joints, ivec2(0, row), 0), texelFetch(u_joints, ivec2(1, row), 0),
                texelFetch(u_joints, ivec2(2, row), 0), texelFetch(u_joints, ivec2(3, row), 0));
}
void main() {
    mat4 skin = in_weights.x * joint_matrix(in_joints.x) + in_weights.y * joint_matrix(in_joints.y)
              + in_weights.z * joint_matrix(in_joints.z) + in_weights.w * joint_matrix(in_joints.w);
    v_normal = mat3(u_view) * (mat3(skin) * in_normal);
    gl_Position = u_proj * u_view * skin * vec4(in_pos, 1.0);
}
"""

SKIN_FRAGMENT = """
#version 330
uniform vec3 u_color;
in vec3 v_normal;
out vec4 f_color;
""" + SHADE + """
void main() {
    vec3 n = normalize(v_normal);
    f_color = vec4(u_color * shade(gl_FrontFacing ? n : -n), 1.0);
}
"""

# A ground mesh (``render.ground_renderer``): flat-shaded by the viewport's light, with a faint
# checker of ``u_cell`` metres in world X and Z so slopes and steps read at a glance.
GROUND_VERTEX = """
#version 330
uniform mat4 u_view;
uniform mat4 u_proj;
in vec3 in_pos;
in vec3 in_normal;
out vec3 v_normal;
out vec3 v_world;
void main() {
    v_normal = mat3(u_view) * in_normal;
    v_world = in_pos;
    gl_Position = u_proj * u_view * vec4(in_pos, 1.0);
}
"""

GROUND_FRAGMENT = """
#version 330
uniform vec3 u_color;
uniform float u_cell;
in vec3 v_normal;
in vec3 v_world;
out vec4 f_color;
""" + SHADE + """
void main() {
    vec3 n = normalize(v_normal);
    ivec2 cell = ivec2(floor(v_world.xz / u_cell));
    float checker = ((cell.x + cell.y) & 1) == 0 ? 1.0 : 0.9;
    f_color = vec4(u_color * checker * shade(gl_FrontFacing ? n : -n), 1.0);
}
"""

# Overlays drawn flat over the scene in window pixels (top-left origin), no depth: the solver's
# residual lines, limit rings and reach shells.
OVERLAY_VERTEX = """
#version 330
uniform vec2 u_size;  // framebuffer width, height in pixels
in vec2 in_pos;
in vec4 in_color;
out vec4 v_color;
void main() {
    v_color = in_color;
    gl_Position = vec4(in_pos.x / u_size.x * 2.0 - 1.0, 1.0 - in_pos.y / u_size.y * 2.0, 0.0, 1.0);
}
"""

OVERLAY_FRAGMENT = """
#version 330
in vec4 v_color;
out vec4 f_color;
void main() {
    f_color = v_color;
}
"""
