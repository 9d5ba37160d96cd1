"""Incremental compilation: a content-hash cache of validation and of per-device work.

One store per (policy file, output directory) under `default_dir()` (never in
the output directory, which holds only configs).  Every key starts with the
code fingerprint (qosc version, every source, template and platform file,
library versions and the environment the tc self-check depends on), so a
change to qosc itself invalidates everything.

Per (target, device) the store keeps the target's diagnostics and the files it
wrote, and per file its identity as the last compile left it (inode, size,
mtime and ctime: any write to a file changes its ctime, which no one can set
back): a device whose inputs did not change is neither checked nor rendered
again, and if its files are still on disk as written (same identity; size and
mtime alone prove nothing), not written either.  Checking that costs one
lstat per file, not a read and a hash of every byte of the output.

The store is data, not code: a JSON object then one line of tab-separated
fields per device, unit and file (see store.py), behind a header line with
the sha256 of the rest, verified before use, in a directory only its user can write (created
0700; one owned by another user, writable by others, or a symlink is refused
with QOS106 and the compile goes on without a cache); stores are files of this
user, mode 0600, never followed through links, and pruning deletes only files
with a store's name and header (see store.py).  The inputs of a device are its own block, the profiles its interfaces
use and the rest of the policy except the other devices and profiles (targets
see the whole model, but a device's output may only depend on those; see
tests/test_scale.py).  Hosts depend on the whole file.

Validation is incremental too.  A single-file policy in plain block style is
cut into text segments (top-level sections, one per device, one per profile);
the store keeps, per device, the hash of its text, what the device rules found
on it and its part of the network summary (qosc.checks: speeds, MTUs,
services carried per marking domain, MPLS cores, claims).  When only device
segments changed, the policy is parsed with the unchanged devices blanked out
(same line numbers), and only the changed devices (with those whose files are
not intact or were not all rendered) are schema-checked, built and checked;
the network rules then run on every device's part, so every diagnostic is the
one a full validation gives.  The devices not built again are never built:
their findings and files come from the store.  Any error, any doubt
(includes, anchors, a segment that does not parse where it was cut, hosts or
SLS paths, which read every device, a change to the MPLS cores, which every
device's findings may depend on) falls back to full validation.  Keys of such
segmented policies ignore line numbers (cached diagnostics are stored
relative to their segment), so moving a device does not invalidate it.

The package: segments (the cut and the hashes), records (compact diagnostics,
parts and the fields of each record), store (the file on disk and the code
fingerprint), files (the identity of output files, and which are no longer
as written) and policy (PolicyCache, the memo qosc/commands/compile.py plugs
into the orchestrator).  The public names, and the
private ones the tests use, are re-exported here, as the single module had them.
"""

from __future__ import annotations

from qosc.cache.policy import Cached, PolicyCache, read_policy
from qosc.cache.records import decode_diags, decode_part, encode_diags, encode_part
from qosc.cache.segments import Seg, _agrees, count_nodes, segment, tree_fingerprint
from qosc.cache.store import FORMAT, KEEP_STORES, Store, _files_fingerprint, code_fingerprint
from qosc.cachedir import default_dir

__all__ = [
    "FORMAT",
    "KEEP_STORES",
    "Cached",
    "PolicyCache",
    "Seg",
    "Store",
    "_agrees",
    "_files_fingerprint",
    "code_fingerprint",
    "count_nodes",
    "decode_diags",
    "decode_part",
    "default_dir",
    "encode_diags",
    "encode_part",
    "read_policy",
    "segment",
    "tree_fingerprint",
]
