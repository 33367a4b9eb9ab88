#version 330 core
// bricklayer: pyrender's mesh.vert + mesh.frag lighting (metallic-roughness PBR, directional lights,
// ambient, emissive), evaluated once per vertex instead of once per fragment. Faces of a part mesh are
// flat (one normal per triangle), the lights are directional and the camera orthographic, so the lit
// colour is constant over a triangle and per-vertex evaluation gives the same picture at a fraction of
// the cost on a software rasterizer (llvmpipe runs the fragment shader for every covered 2x2 pixel quad
// of millions of tiny triangles). Only what bricklayer.render uses is kept: no textures, no shadows,
// no point or spot lights.

layout(location = 0) in vec3 position;
#ifdef NORMAL_LOC
layout(location = NORMAL_LOC) in vec3 normal;
#endif
#ifdef COLOR_0_LOC
layout(location = COLOR_0_LOC) in vec4 color_0;
#endif
layout(location = INST_M_LOC) in mat4 inst_m;

struct DirectionalLight {
    vec3 color;
    float intensity;
    vec3 direction;
};
struct Material {
    vec3 emissive_factor;
    vec4 base_color_factor;
    float metallic_factor;
    float roughness_factor;
};

uniform mat4 M;
uniform mat4 V;
uniform mat4 P;
uniform Material material;
uniform DirectionalLight directional_lights[MAX_DIRECTIONAL_LIGHTS];
uniform int n_directional_lights;
uniform vec3 cam_pos;
uniform vec3 ambient_light;

flat out vec4 lit_color;

const float PI = 3.141592653589793;
const float min_roughness = 0.04;

vec3 compute_brdf(vec3 n, vec3 v, vec3 l, float roughness, vec3 f0, vec3 c_diff, vec3 radiance)
{
    vec3 h = normalize(l + v);
    float nl = clamp(dot(n, l), 0.001, 1.0);
    float nv = clamp(abs(dot(n, v)), 0.001, 1.0);
    float nh = clamp(dot(n, h), 0.0, 1.0);
    float vh = clamp(dot(v, h), 0.0, 1.0);
    vec3 F = f0 + (1.0 - f0) * pow(clamp(1.0 - vh, 0.0, 1.0), 5.0);
    float r = roughness + 1.0;
    float k = r * r / 8.0;
    float G = (nv / (nv * (1.0 - k) + k)) * (nl / (nl * (1.0 - k) + k));
    float a = roughness * roughness;
    float a2 = a * a;
    float denom = (nh * nh * (a2 - 1.0) + 1.0);
    float D = a2 / (PI * denom * denom);
    vec3 diffuse_contrib = (1.0 - F) * c_diff / PI;
    vec3 spec_contrib = F * G * D / (4.0 * nl * nv + 0.001);
    return nl * radiance * (diffuse_contrib + spec_contrib);
}

void main()
{
    vec4 wp = M * inst_m * vec4(position, 1.0);
    gl_Position = P * V * wp;
#ifndef NORMAL_LOC
    // Lines (edges) carry no normal: their colour is the same at every vertex of a view, worked out once
    // per view on the CPU (bricklayer.render.draw._edge_lit_linear) and handed over as the linear colour in
    // material.emissive_factor, so no lighting is evaluated per vertex.
    lit_color = clamp(vec4(pow(material.emissive_factor, vec3(1.0 / 2.2)), material.base_color_factor.a), 0.0, 1.0);
#else
    vec3 frag_position = wp.xyz;
    mat4 N = transpose(inverse(M * inst_m));
    vec3 n = normalize(vec3(N * vec4(normal, 0.0)));
    float roughness = clamp(material.roughness_factor, min_roughness, 1.0);
    float metallic = clamp(material.metallic_factor, 0.0, 1.0);
    vec4 base_color = material.base_color_factor;
    vec3 c_diff = mix(vec3(0.0), base_color.rgb * (1 - min_roughness), 1.0 - metallic);
    vec3 f0 = mix(vec3(min_roughness), base_color.rgb, metallic);
    vec4 color = vec4(vec3(0.0), 1.0);
    vec3 v = normalize(cam_pos - frag_position);
    for (int i = 0; i < n_directional_lights; i++) {
        vec3 l = normalize(-1.0 * directional_lights[i].direction);
        vec3 radiance = directional_lights[i].intensity * directional_lights[i].color;
        color.xyz += compute_brdf(n, v, l, roughness, f0, c_diff, radiance);
    }
    color.xyz += base_color.xyz * ambient_light;
    color.xyz += material.emissive_factor * material.emissive_factor;
#ifdef COLOR_0_LOC
    color *= color_0;
#endif
    lit_color = clamp(vec4(pow(color.xyz, vec3(1.0 / 2.2)), color.a * base_color.a), 0.0, 1.0);
#endif
}
