"""Bulk simulation: many hands (or matches) with built-in policies, in parallel in Rust.

Hand ``i`` of a run with seed ``s`` is the first hand of a fresh match (both teams at level 3,
the final declarer becomes banker), dealt from ``derive(s, BATCH_HAND, i)``; seat ``p``
decides with its own stream ``derive(hand_seed, POLICY, p)``. Results therefore do not depend
on the thread count, the chunking or the machine: any index range (``start=``, the CLI's
``--shard i/n``) can run anywhere and :func:`merge` back into one run.

Policies: ``"random"`` is uniform over the distinct legal actions of each decision (while
dealing: pass or each allowed showing; leading: each distinct combination; following: each
distinct legal follow, a multiset, by the ladder's exact sampler). ``"greedy"`` is a
sensible heuristic player (see the Rust module ``agent::greedy``).

The package, one concept a module, lowest first: ``columns`` (the result columns), ``stats``
(intervals, percentiles, the running ``Tally``), ``ranges`` (index ranges), ``summary``
(the text table), ``files`` (the results archive's format, ``NpzStream``, records files),
``results`` (:class:`SimResults`, :class:`MatchResults`), ``loading``, ``merging``, ``local`` (the run
loop on this machine, Ctrl-C), then ``tractor.ray_backend`` (the loop on a Ray cluster), and
``run`` (:func:`simulate`: the arguments checked, then one of the two loops).
"""

from __future__ import annotations

from ..records import read_records
from .loading import load
from .merging import merge
from .results import MatchResults, SimResults
from .run import POLICIES, simulate

# Also here, as when the package was one module (the CLI and the tests use some of them).
from .columns import HAND_COLUMNS, MATCH_COLUMNS, NONE  # noqa: F401,E402
from .files import RESULTS_FORMAT, NpzStream  # noqa: F401,E402
from .ranges import Ranges  # noqa: F401,E402
from .run import MAX_CHUNK  # noqa: F401,E402
from .stats import Tally  # noqa: F401,E402
from .summary import format_summary  # noqa: F401,E402

__all__ = ["simulate", "SimResults", "MatchResults", "merge", "load", "read_records", "POLICIES"]
