"""Lab tests train tiny models: one torch thread each keeps them fast on a small, shared machine."""

import torch

torch.set_num_threads(1)
