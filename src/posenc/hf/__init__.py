"""Hugging Face configs, read in one place: a transformers config (or a ``config.json`` dict, in the schema of
transformers 4 or 5, flat or per layer type) in, posenc's objects out. No model is loaded here (no weights: only
:mod:`posenc.hf.model_reading` builds a model's skeleton on the meta device, to read its encoding off it).

- :mod:`posenc.hf.fields`: every field read through :class:`ConfigFields`, each checked and named as ``config.json``
  spells it (:class:`ConfigFieldError`);
- :mod:`posenc.hf.config`: :func:`from_hf_config`, the one encoding a config describes
  (:func:`rope_options_from_hf_config` for RoPE's options, :func:`scaling_named` for the scaling record a rope type
  names);
- :mod:`posenc.hf.schedule`: :func:`schedule_from_hf_config`, the encoding of every layer;
- :mod:`posenc.hf.model_reading`: :func:`~posenc.hf.model_reading.read_encoding`, the encoding read off the model a
  config describes (a learned table or a rotary module), an independent reading beside posenc's.

``posenc inspect`` (:mod:`posenc.inspection`) and model loading (:mod:`posenc.pretrained`) build on these.

    >>> from posenc.hf import schedule_from_hf_config
    >>> schedule = schedule_from_hf_config({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
    ...                                     "num_hidden_layers": 2, "rope_theta": 10000.0})
    >>> [(layer.name, layer.encoding.base) for layer in schedule]
    [('rope', 10000.0), ('rope', 10000.0)]
"""

from posenc.hf.config import from_hf_config, rope_options_from_hf_config, scaling_named
from posenc.hf.fields import ConfigFieldError, ConfigFields, check_written, config_from_dict, read_config_json
from posenc.hf.schedule import schedule_from_hf_config

__all__ = ["from_hf_config", "rope_options_from_hf_config", "scaling_named", "schedule_from_hf_config",
           "ConfigFields", "ConfigFieldError", "check_written", "config_from_dict", "read_config_json"]
