"""Writes tests/hostile/: malformed safetensors files, each paired in
tests/hostile/EXPECT with words its error message must contain. They are
derived from the smallest golden file, so each breaks exactly one rule.
Standard library only: `python3 scripts/py/make_hostile.py`."""
import json
import os
import struct

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
BASE = os.path.join(TOP, "tests", "golden", "d16_h2_1x1_nopad.safetensors")
OUT = os.path.join(TOP, "tests", "hostile")


def split(raw):
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def join(header, data, text=None):
    text = text if text is not None else json.dumps(header)
    blob = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(blob)) + blob + data


def main():
    raw = open(BASE, "rb").read()
    header, data = split(raw)
    names = [k for k in header if k != "__metadata__"]
    first = min(names, key=lambda k: header[k]["data_offsets"][0])
    w = "encoder.layers.0.linear1.weight"
    cases = {}

    def mutate(name, expect, fn):
        h = json.loads(json.dumps(header))
        d = fn(h)
        cases[name] = (join(h, data) if d is None else d, expect)

    cases["empty"] = (b"", "shorter than the 8-byte header")
    cases["seven_bytes"] = (raw[:7], "shorter than the 8-byte header")
    cases["header_past_end"] = (struct.pack("<Q", len(raw)) + raw[8:], "runs past the end")
    cases["header_len_huge"] = (struct.pack("<Q", 2 ** 63 + 5) + raw[8:], "runs past the end")
    cases["truncated_data"] = (raw[:-100], "run past the")
    cases["not_object"] = (join(None, data, "[1, 2, 3]"), "does not start with '{'")
    cases["json_truncated"] = (join(None, data, json.dumps(header)[:-7]), "invalid JSON")
    cases["json_trailing_comma"] = (join(None, data, json.dumps(header)[:-1] + ",}"), "invalid JSON")
    cases["json_trailing_garbage"] = (join(None, data, json.dumps(header) + "x"), "trailing characters")
    cases["json_deep"] = (join(None, data, '{"a":' + "[" * 100 + "]" * 100 + "}"), "nested too deeply")
    cases["json_bad_escape"] = (join(None, data, '{"a\\q":1}'), "bad escape")
    cases["json_nul_escape"] = (join(None, data, '{"a\\u0000":1}'), "NUL")
    cases["json_lone_surrogate"] = (join(None, data, '{"a\\ud800":1}'), "surrogate")
    cases["json_control_char"] = (join(None, data, '{"a\x01":1}'), "control character")
    dup = json.dumps(header)[:-1] + ', "%s": %s}' % (first, json.dumps(header[first]))
    cases["json_duplicate_key"] = (join(None, data, dup), "duplicate key")
    mutate("unknown_dtype", "unknown dtype", lambda h: h[w].update(dtype="F19"))
    mutate("shape_negative", "not a non-negative integer", lambda h: h[w].update(shape=[-64, 16]))
    mutate("shape_float", "not a non-negative integer", lambda h: h[w].update(shape=[64.5, 16]))
    mutate("shape_huge", "2^48", lambda h: h[w].update(shape=[2 ** 40, 2 ** 40]))
    mutate("shape_too_many_dims", "dimensions", lambda h: h[w].update(shape=[1] * 9))
    mutate("offsets_reversed", "end before they begin",
           lambda h: h[w].update(data_offsets=h[w]["data_offsets"][::-1]))
    mutate("offsets_past_end", "run past the",
           lambda h: h[w].update(data_offsets=[len(data) - 4, len(data) + 4092]))
    mutate("size_mismatch", "needs", lambda h: h[w].update(shape=[63, 16]))
    mutate("extra_field", "unexpected field", lambda h: h[w].update(strides=[16, 1]))
    mutate("entry_not_object", "not a JSON object", lambda h: h.update({w: [1, 2]}))
    mutate("metadata_not_object", "__metadata__", lambda h: h.update(__metadata__=[1]))
    mutate("metadata_not_string", "__metadata__", lambda h: h["__metadata__"].update(heads=2))

    def overlap(h):  # the last tensor moved 4 bytes back onto the one before it
        last = max(names, key=lambda k: h[k]["data_offsets"][0])
        h[last]["data_offsets"] = [o - 4 for o in h[last]["data_offsets"]]
    mutate("overlap", "overlaps", overlap)
    mutate("hole", "belong to no tensor", lambda h: h.pop(w) and None)

    cases["trailing_bytes"] = (raw + b"\0" * 16, "after the last tensor")

    # Well-formed safetensors, wrong as an nn.Transformer.
    def drop(name, data_too=True):
        def fn(h):
            a, b = h[name]["data_offsets"]
            del h[name]
            for k in h:
                if k != "__metadata__" and h[k]["data_offsets"][0] >= b:
                    h[k]["data_offsets"] = [o - (b - a) for o in h[k]["data_offsets"]]
            return join(h, data[:a] + data[b:])
        return fn
    mutate("missing_tensor", "missing tensor 'decoder.layers.0.linear2.bias'", drop("decoder.layers.0.linear2.bias"))

    def rename(old, new):
        def fn(h):
            h[new] = h.pop(old)
        return fn
    mutate("unexpected_tensor", "unexpected tensor 'encoder.layers.0.linear3.bias'",
           rename("encoder.layers.0.linear2.bias", "encoder.layers.0.linear3.bias"))
    mutate("layer_gap", "missing tensor 'encoder.layers.0",
           lambda h: [h.update({k.replace("encoder.layers.0.", "encoder.layers.1."): h.pop(k)})
                      for k in list(h) if k.startswith("encoder.layers.0.")] and None)
    mutate("layer_leading_zero", "unexpected tensor",
           rename("encoder.layers.0.norm1.bias", "encoder.layers.00.norm1.bias"))

    def reshape(name, shape, dtype=None):
        def fn(h):
            h[name]["shape"] = shape
            if dtype:
                h[name]["dtype"] = dtype
        return fn
    mutate("layer_shape_mismatch", "decoder.layers.0.linear1.weight' has shape [32, 32], expected [64, 16]",
           reshape("decoder.layers.0.linear1.weight", [32, 32]))
    mutate("bias_wrong_length", "encoder.layers.0.self_attn.in_proj_bias' has shape [24, 2]",
           reshape("encoder.layers.0.self_attn.in_proj_bias", [24, 2]))
    mutate("weight_wrong_dtype", "is I32, expected F32", reshape(w, [64, 16], "I32"))
    mutate("d_model_not_3d", "[3*d_model, d_model]",
           reshape("encoder.layers.0.self_attn.in_proj_weight", [16, 48]))
    mutate("no_heads", "give --heads", lambda h: h["__metadata__"].pop("heads") and None)
    mutate("heads_not_divisor", "not a multiple", lambda h: h["__metadata__"].update(heads="3"))
    mutate("heads_garbage", "not a head count", lambda h: h["__metadata__"].update(heads="two"))
    mutate("src_wrong_width", "'src' is not of shape", reshape("src", [1, 10, 8]))
    mutate("src_batch_mismatch", "batch", reshape("src", [5, 1, 16]))
    mutate("no_layers", "no encoder.layers.N", lambda h: join(
        {"__metadata__": h["__metadata__"], "src": {**h["src"], "data_offsets": [0, 320]}},
        data[h["src"]["data_offsets"][0]:h["src"]["data_offsets"][1]]))

    # The base file's masks are all zeros: one value set to 2, and the
    # same bytes declared with the transposed shape.
    def mask_value(h):
        a = h["src_key_padding_mask"]["data_offsets"][0]
        return join(h, data[:a + 2] + b"\x02" + data[a + 3:])
    mutate("mask_value_2", "holds 2", mask_value)
    mutate("mask_wrong_shape", "not of shape [1, 5]", reshape("src_key_padding_mask", [5, 1]))

    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    with open(os.path.join(OUT, "EXPECT"), "w") as manifest:
        for name, (blob, expect) in sorted(cases.items()):
            with open(os.path.join(OUT, name + ".safetensors"), "wb") as f:
                f.write(blob)
            manifest.write(f"{name}.safetensors\t{expect}\n")


if __name__ == "__main__":
    main()
