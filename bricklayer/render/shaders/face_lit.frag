#version 330 core
// bricklayer: the colour lit per vertex in face_lit.vert, unchanged.
flat in vec4 lit_color;
out vec4 frag_color;
void main()
{
    frag_color = lit_color;
}
