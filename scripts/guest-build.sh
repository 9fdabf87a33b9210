#!/usr/bin/env bash
# Builds the Debian 12 guest image from Debian's packages: GUEST_IMAGES_DIR/debian-12.qcow2 (an ext4 root
# filesystem, no partition table) with debian-12.vmlinuz and debian-12.initrd beside it for direct kernel boot.
# openssh-server, cloud-init (NoCloud) and qemu-guest-agent are installed, with a login on the serial console
# (ttyS0); no SSH host key and no password are baked in: each server gets its own through its cloud-init seed.
# The serial getty waits for its device however long udev takes: systemd gives a device 90 s by default, and a
# guest emulated on a busy host missed that, failing the getty for good ("Dependency failed").
# The result is cached under GUEST_CACHE_DIR keyed on this script's hash, so CI rebuilds only when it changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
images=${GUEST_IMAGES_DIR:-/var/lib/vps/images}
cache=${GUEST_CACHE_DIR:-/var/cache/vps-guest}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
hash=$(sha256sum "$here/guest-build.sh" | cut -c1-16)
built="$cache/debian-12-$hash"

if [ ! -f "$built/debian-12.qcow2" ]; then
  for tool in mmdebstrap mke2fs qemu-img; do
    command -v "$tool" >/dev/null || { echo "guest:build needs $tool (apt-get install mmdebstrap qemu-utils e2fsprogs)"; exit 1; }
  done
  work=$(mktemp -d /var/tmp/vps-guest.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  echo "building the Debian 12 guest in $work"
  mmdebstrap --mode=root --variant=apt --quiet \
    --include=linux-image-cloud-amd64,initramfs-tools,systemd-sysv,udev,dbus,openssh-server,cloud-init,qemu-guest-agent,ifupdown,iproute2,netbase,e2fsprogs,procps,ca-certificates \
    --customize-hook='echo "/dev/vda / ext4 defaults,errors=remount-ro 0 1" > "$1/etc/fstab"' \
    --customize-hook='rm -f "$1"/etc/ssh/ssh_host_*' \
    --customize-hook='printf "datasource_list: [ NoCloud, None ]\n" > "$1/etc/cloud/cloud.cfg.d/90-vps-datasource.cfg"' \
    --customize-hook='truncate -s 0 "$1/etc/machine-id"; rm -f "$1/var/lib/dbus/machine-id"' \
    --customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer systemd-networkd-wait-online.service' \
    --customize-hook='chroot "$1" systemctl enable ssh.service qemu-guest-agent.service serial-getty@ttyS0.service' \
    --customize-hook='mkdir -p "$1/etc/systemd/system/dev-ttyS0.device.d" && printf "[Unit]\nJobRunningTimeoutSec=infinity\n" > "$1/etc/systemd/system/dev-ttyS0.device.d/wait.conf"' \
    --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
    bookworm "$work/root" "$mirror"
  cp "$work"/root/boot/vmlinuz-* "$work/debian-12.vmlinuz"
  cp "$work"/root/boot/initrd.img-* "$work/debian-12.initrd"
  mke2fs -q -t ext4 -L root -d "$work/root" "$work/root.img" 2G
  qemu-img convert -f raw -O qcow2 "$work/root.img" "$work/debian-12.qcow2"
  mkdir -p "$built.tmp"
  mv "$work/debian-12.qcow2" "$work/debian-12.vmlinuz" "$work/debian-12.initrd" "$built.tmp/"
  rm -rf "$built" && mv "$built.tmp" "$built"
fi

# Guests run as libvirt-qemu: the images must be world-readable in a folder it can reach.
install -d -m 0755 "$images"
for file in debian-12.qcow2 debian-12.vmlinuz debian-12.initrd; do
  install -m 0644 "$built/$file" "$images/$file.new"
  mv "$images/$file.new" "$images/$file"
done
echo "debian-12 guest ready in $images ($(du -h "$images/debian-12.qcow2" | cut -f1))"
