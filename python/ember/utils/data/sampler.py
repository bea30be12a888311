"""Samplers: the order in which a DataLoader visits a map-style dataset."""
import random

# Note [DataLoader randomness]
# Ember's Python API has no Generator object yet, so a sampler's `generator` is a random.Random, an
# int seed, or None (a fresh random.Random seeded from Python's `random` module, so random.seed(s)
# makes shuffling repeatable). The same generator object gives the next permutation on each epoch.


def _rng(generator):
    if generator is None:
        return random.Random(random.getrandbits(64))
    if isinstance(generator, random.Random):
        return generator
    if isinstance(generator, int) and not isinstance(generator, bool):
        return random.Random(generator)
    if hasattr(generator, "initial_seed"):  # an object with a seed, as torch.Generator has
        return random.Random(generator.initial_seed())
    raise TypeError(f"[sampler] generator must be a random.Random, an int seed or None, "
                    f"got {type(generator).__name__}")


class Sampler:
    """Yields dataset indices; subclasses define __iter__ (and __len__ when they know it)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation each epoch (or num_samples draws with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples = num_samples
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"[RandomSampler] num_samples should be a positive integer, got {num_samples}")
        self.generator = generator
        self._rng = None

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        # generator None: a fresh stream per epoch from Python's random module; otherwise one stream
        # continued across epochs (see Note [DataLoader randomness]).
        if self.generator is None:
            rng = _rng(None)
        else:
            if self._rng is None:
                self._rng = _rng(self.generator)
            rng = self._rng
        n = len(self.data_source)
        if self.replacement:
            for _ in range(self.num_samples):
                yield rng.randrange(n)
            return
        left = self.num_samples
        while left > 0:
            perm = list(range(n))
            rng.shuffle(perm)
            yield from perm[:left]
            left -= n

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = list(indices), generator
        self._rng = None

    def __iter__(self):
        if self._rng is None:
            self._rng = _rng(self.generator)
        perm = list(self.indices)
        self._rng.shuffle(perm)
        return iter(perm)

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of batch_size (the last shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"[BatchSampler] batch_size should be a positive integer value, got {batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"[BatchSampler] drop_last should be a boolean value, got {drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probability proportional to weights (with replacement by default)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"[WeightedRandomSampler] num_samples should be a positive integer value, "
                             f"got {num_samples}")
        w = weights.tolist() if hasattr(weights, "tolist") else list(weights)
        if any(not isinstance(x, (int, float)) or x < 0 for x in w) or not any(w):
            raise ValueError("[WeightedRandomSampler] weights must be non-negative numbers, not all zero")
        if not replacement and num_samples > sum(1 for x in w if x > 0):
            raise ValueError("[WeightedRandomSampler] without replacement, num_samples cannot exceed the number "
                             "of non-zero weights")
        self.weights, self.num_samples, self.replacement, self.generator = w, num_samples, replacement, generator
        self._rng = None

    def __iter__(self):
        if self.generator is None:
            rng = _rng(None)
        else:
            if self._rng is None:
                self._rng = _rng(self.generator)
            rng = self._rng
        if self.replacement:
            return iter(rng.choices(range(len(self.weights)), weights=self.weights, k=self.num_samples))
        w = list(self.weights)
        picked = []
        for _ in range(self.num_samples):
            i = rng.choices(range(len(w)), weights=w, k=1)[0]
            picked.append(i)
            w[i] = 0
        return iter(picked)

    def __len__(self):
        return self.num_samples
