"""An empty qcow2 image, written without qemu-img (which the development
machines' QEMU package set lacks): QEMU's record/replay keeps the
snapshots that reverse debugging starts from on a qcow2 drive
(docs/replay.md, make replay RR=1).

The layout, in 64 KiB clusters (qcow2 version 2, QEMU's docs/interop/
qcow2.txt): 0 the header, 1 the refcount table, 2 its one refcount
block, 3 the L1 table (one entry covers 512 MiB, more than SIZE). Every
guest cluster is unallocated (reads as zeros); the four metadata
clusters have refcount 1.
"""
import struct

CLUSTER_BITS = 16
CLUSTER = 1 << CLUSTER_BITS
SIZE = 64 << 20


def write_empty(path, size=SIZE):
    l1_entries = 1
    header = struct.pack(
        ">4sIQIIQIIQQIIQ",
        b"QFI\xfb", 2,           # magic, version
        0, 0,                    # no backing file
        CLUSTER_BITS, size,
        0,                       # no encryption
        l1_entries, 3 * CLUSTER,  # L1 table
        1 * CLUSTER, 1,          # refcount table: one cluster
        0, 0)                    # no snapshots yet
    refcount_table = struct.pack(">Q", 2 * CLUSTER)
    refcount_block = struct.pack(">4H", 1, 1, 1, 1)
    with open(path, "wb") as f:
        for cluster, data in enumerate((header, refcount_table, refcount_block, b"")):
            f.seek(cluster * CLUSTER)
            f.write(data.ljust(CLUSTER, b"\0"))
