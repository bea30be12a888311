"""ember.utils.data: Dataset, TensorDataset, samplers and the DataLoader."""
from .dataset import Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                      BatchSampler)
from .dataloader import DataLoader, default_collate, get_worker_info
