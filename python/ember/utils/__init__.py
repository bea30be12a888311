"""ember.utils: ember.utils.data (datasets and the DataLoader)."""
from . import data
