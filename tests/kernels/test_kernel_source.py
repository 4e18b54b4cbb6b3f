"""The C++ kernel's source is a file of the package, and the build's name follows its text and flags."""

from importlib import resources

from posenc.kernels import cpu


def test_source_is_the_packaged_cpp_file():
    packaged = resources.files("posenc.kernels").joinpath("rope_cpu.cpp")
    assert packaged.is_file() and cpu.SOURCE_FILE == "rope_cpu.cpp"
    text = cpu.source()
    assert text == packaged.read_text(encoding="utf-8")
    # the two functions cpu.py binds through ctypes
    assert "int posenc_rope_apply(int dtype," in text and "posenc_rope_has_f16" in text and 'extern "C"' in text


def test_build_name_changes_with_the_source_and_the_flags():
    isa, flags = cpu.isa_flags()
    text = cpu.source()
    name = cpu.library_name(isa, flags, text)
    prefix, digest = name.rsplit("_", 1)
    assert prefix == f"posenc_rope_cpu_{isa}" and len(digest) == 12 and int(digest, 16) >= 0
    assert cpu.library_name(isa, flags, text) == name
    assert cpu.library_name(isa, flags, text + "\n// an edit\n") != name
    assert cpu.library_name(isa, [*flags, "-O2"], text) != name
