#!/usr/bin/env bash
# Builds the tiny TEST guest (not a distribution): Debian's cloud kernel and an initramfs with busybox and
# dropbear, plus a small ext4 disk mounted as /root so files survive reboots. It boots in seconds under
# software emulation. It reads the same cloud-init NoCloud seed the provisioner writes for every image
# (hostname, root's SHA-512 crypt hash, root's SSH keys, the pinned ed25519 host key, the static network), so
# the provisioner has one code path. Output: TINY_GUEST_DIR/<os>.{qcow2,vmlinuz,initrd}, the layout of
# GUEST_IMAGES_DIR, under the catalog OS id the tests order (TINY_GUEST_OS, default debian-12).
# The same kernel and initramfs are the rescue system: booted with `vps.rescue` on the kernel command line they
# keep root's home in memory and leave the server's disk (/dev/vda) unmounted for its owner, with e2fsck at
# hand. They are installed beside the images as rescue.{vmlinuz,initrd}; RESCUE_ONLY=1 installs only those
# (`npm run guest:build-rescue` puts them beside GUEST_IMAGES_DIR's images).
# Cached under GUEST_CACHE_DIR keyed on this script's hash.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
images=${TINY_GUEST_DIR:-/var/lib/vps/test-images}
os=${TINY_GUEST_OS:-debian-12}
cache=${GUEST_CACHE_DIR:-/var/cache/vps-guest}
hash=$(sha256sum "$here/guest-build-tiny.sh" | cut -c1-16)
built="$cache/tiny-$hash"

if [ ! -f "$built/tiny.initrd" ]; then
  for tool in busybox dropbear dropbearconvert cpio mke2fs e2fsck qemu-img apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || [ -x "/usr/lib/dropbear/$tool" ] || {
      echo "guest:build-tiny needs $tool (apt-get install busybox-static dropbear-bin cpio e2fsprogs qemu-utils)"
      exit 1
    }
  done
  work=$(mktemp -d /var/tmp/vps-tiny.XXXXXX)
  chmod 0755 "$work" # apt-get download writes as _apt
  trap 'rm -rf "$work"' EXIT
  # Debian's own kernel: the package the cloud kernel metapackage points at, downloaded (not installed).
  kernel_of() { apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}'; }
  kernel_pkg=$(kernel_of)
  # A machine whose package lists were never fetched knows no kernel package yet.
  [ -n "$kernel_pkg" ] || { apt-get update -qq && kernel_pkg=$(kernel_of); }
  (cd "$work" && apt-get download -qq "$kernel_pkg")
  dpkg-deb -x "$work"/"$kernel_pkg"_*.deb "$work/kernel"
  release=${kernel_pkg#linux-image-}
  moddir="$work/kernel/lib/modules/$release"

  root="$work/root"
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/dropbear,etc/acpi/PWRF,proc,sys,dev,run,tmp,mnt/seed,root,var/log,lib/modules}
  cp /bin/busybox "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list-full); do
    [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
  done
  dropbear=$(command -v dropbear || echo /usr/sbin/dropbear)
  convert=$(command -v dropbearconvert || echo /usr/lib/dropbear/dropbearconvert)
  install -m 0755 "$dropbear" "$root/usr/sbin/dropbear"
  install -m 0755 "$convert" "$root/usr/bin/dropbearconvert"
  e2fsck=$(command -v e2fsck || echo /sbin/e2fsck)
  install -m 0755 "$e2fsck" "$root/usr/sbin/e2fsck"
  # Their shared libraries, at the paths the dynamic loader looks in.
  for lib in $(ldd "$dropbear" "$convert" "$e2fsck" | awk '/=> \// {print $3} /^\s*\/lib/ {print $1}' | sort -u); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  mkdir -p "$root/lib64" && cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"

  # The modules the guest needs (virtio disk and network, the IDE CD-ROM holding the seed, the ACPI power
  # button), with their dependencies, in load order.
  : >"$root/etc/modules"
  # Dependencies from each module's own modinfo section (no depmod needed).
  (cd "$moddir" && find kernel -name '*.ko' | sed 's|.*/\(.*\)\.ko$|\1 &|' | tr '-' '_' >"$work/modules")
  add_module() {
    local name rel dep
    name=$(echo "$1" | tr '-' '_')
    rel=$(awk -v n="$name" '$1 == n {print $2; exit}' "$work/modules")
    [ -n "$rel" ] || { echo "no module $name in $release"; exit 1; }
    rel=$(cd "$moddir" && ls "$(dirname "$rel")"/* | awk -v n="$name" '{f = $0; sub(/.*\//, "", f); sub(/\.ko$/, "", f); gsub(/-/, "_", f)} f == n {print; exit}')
    grep -qx "$rel" "$work/loaded" 2>/dev/null && return 0
    for dep in $(tr '\0' '\n' <"$moddir/$rel" | sed -n 's/^depends=//p' | tr ',' ' '); do
      add_module "$dep"
    done
    echo "$rel" >>"$work/loaded"
    mkdir -p "$root/lib/modules/$(dirname "$rel")"
    cp "$moddir/$rel" "$root/lib/modules/$rel"
    echo "/lib/modules/$rel" >>"$root/etc/modules"
  }
  for module in virtio_pci virtio_blk virtio_net ata_piix sr_mod isofs button evdev; do
    add_module "$module"
  done

  printf 'root:x:0:0:root:/root:/bin/sh\nsshd:x:74:74::/:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\n' >"$root/etc/group"
  printf '/bin/sh\n' >"$root/etc/shells"
  # Root logs in on the serial console (busybox getty and login) with the seed's password, as over SSH.
  printf '::sysinit:/etc/rc\n::respawn:/usr/sbin/dropbear -F -E -p 22 -r /etc/dropbear/ed25519_host_key\n::respawn:/sbin/acpid -f -c /etc/acpi\nttyS0::respawn:/sbin/getty -L 115200 ttyS0 vt100\n::shutdown:/bin/umount -a -r\n' >"$root/etc/inittab"
  # ACPI power button (virsh shutdown) -> orderly power-off through init.
  printf '#!/bin/sh\nexec /sbin/poweroff\n' >"$root/etc/acpi/PWRF/00000080"
  chmod 0755 "$root/etc/acpi/PWRF/00000080"
  cat >"$root/etc/rc" <<'RC'
#!/bin/sh
# First-boot setup from the cloud-init NoCloud seed (only the keys the provisioner writes).
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
while read -r module; do insmod "$module"; done </etc/modules
wait_for() { i=0; while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; }
wait_for /dev/sr0
mount -t iso9660 -o ro /dev/sr0 /mnt/seed
seed=/mnt/seed
unquote() { sed -e 's/^ *"//' -e 's/" *$//'; }

hostname "$(sed -n 's/^local-hostname: *//p' $seed/meta-data | unquote)"
hash=$(sed -n 's/^ *hashed_passwd: *//p' $seed/user-data | unquote)
printf 'root:%s:20000:0:99999:7:::\n' "$hash" >/etc/shadow
chmod 0600 /etc/shadow

wait_for /dev/vda
if grep -qw vps.rescue /proc/cmdline; then
  # The rescue system: root's home in memory, the server's disk left for its owner to check and mount.
  mount -t tmpfs -o mode=0700 tmpfs /root
else
  mount -t ext4 /dev/vda /root || echo "no persistent /root"
fi
chmod 0700 /root
mkdir -p /root/.ssh && chmod 0700 /root/.ssh
sed -n 's/^ *ssh_authorized_keys: *\[\(.*\)\] *$/\1/p' $seed/user-data |
  sed -e 's/^"//' -e 's/"$//' -e 's/", *"/\n/g' >/root/.ssh/authorized_keys
chmod 0600 /root/.ssh/authorized_keys

# The pinned host key (OpenSSH format in the seed) in dropbear's format; the OpenSSH copy is removed.
umask 077
awk '/^  ed25519_private: \|/ {on = 1; next} on && /^    / {sub(/^    /, ""); print; next} {on = 0}' \
  $seed/user-data >/tmp/host_key
dropbearconvert openssh dropbear /tmp/host_key /etc/dropbear/ed25519_host_key >/dev/null 2>&1
rm -f /tmp/host_key
umask 022

# Static addresses from network-config on the interface whose MAC it names: IPv4 with its gateway, and IPv6
# (the server's /64) with its gateway on the host's bridge, without autoconfiguration from advertisements.
mac=$(sed -n "s/.*macaddress: *'\{0,1\}\([0-9a-f:]*\).*/\1/p" $seed/network-config | head -n 1)
addresses=$(sed -n 's/^ *addresses: *\[\(.*\)\] *$/\1/p' $seed/network-config | head -n 1 | tr -d "' " | tr ',' ' ')
gateway=$(sed -n 's/^ *gateway4: *//p' $seed/network-config | head -n 1)
gateway6=$(sed -n "s/^ *gateway6: *'\{0,1\}\([0-9a-f:]*\).*/\1/p" $seed/network-config | head -n 1)
ip link set lo up
for dev in /sys/class/net/*; do
  [ "$(cat "$dev/address")" = "$mac" ] || continue
  name=${dev##*/}
  if grep -q 'accept-ra: false' $seed/network-config; then
    sysctl -q -w "net.ipv6.conf.$name.accept_ra=0"
    sysctl -q -w "net.ipv6.conf.$name.autoconf=0"
  fi
  ip link set "$name" up
  for address in $addresses; do ip addr add "$address" dev "$name"; done
  [ -n "$gateway" ] && ip route add default via "$gateway"
  [ -n "$gateway6" ] && ip -6 route add default via "$gateway6" dev "$name"
done
nameservers=$(sed -n 's/^ *nameservers: *{addresses: *\[\(.*\)\]}.*/\1/p' $seed/network-config | tr ',' ' ')
for ns in $nameservers; do echo "nameserver $ns" >>/etc/resolv.conf; done
umount $seed
RC
  chmod 0755 "$root/etc/rc"
  ln -s /bin/busybox "$root/init"

  mkdir -p "$work/out"
  cp "$work/kernel/boot/vmlinuz-$release" "$work/out/tiny.vmlinuz"
  (cd "$root" && find . | cpio -o -H newc --quiet | gzip -6) >"$work/out/tiny.initrd"
  mke2fs -q -t ext4 -L root "$work/disk.img" 64M
  qemu-img convert -f raw -O qcow2 "$work/disk.img" "$work/out/tiny.qcow2"
  mkdir -p "$cache"
  rm -rf "$built.tmp" && mv "$work/out" "$built.tmp"
  rm -rf "$built" && mv "$built.tmp" "$built"
fi

# Guests run as libvirt-qemu: world-readable files in a folder it can reach.
install -d -m 0755 "$images"
put() {
  install -m 0644 "$built/tiny.$1" "$images/$2.new"
  mv "$images/$2.new" "$images/$2"
}
put vmlinuz rescue.vmlinuz
put initrd rescue.initrd
if [ "${RESCUE_ONLY:-0}" = 1 ]; then
  echo "rescue system ready in $images ($(du -h "$built/tiny.initrd" | cut -f1) initramfs)"
  exit 0
fi
for ext in qcow2 vmlinuz initrd; do put "$ext" "$os.$ext"; done
echo "tiny test guest ready in $images as $os, with the rescue system ($(du -h "$built/tiny.initrd" | cut -f1) initramfs)"
