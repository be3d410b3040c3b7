// SPDX-License-Identifier: MIT
// Test-only stand-in for <linux/magic.h> in the Windows build: see ../../posix_shim.h.
#define TMPFS_MAGIC 0x01021994
#define NFS_SUPER_MAGIC 0x6969
#define BTRFS_SUPER_MAGIC 0x9123683E
#define EXT4_SUPER_MAGIC 0xEF53
#define XFS_SUPER_MAGIC 0x58465342
