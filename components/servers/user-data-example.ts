/** The example the field offers: a web server with a page of its own, set up at the first boot. */
export const USER_DATA_EXAMPLE = `#cloud-config
package_update: true
packages: [nginx]
write_files:
  - path: /var/www/html/index.html
    content: Hello from my new server
runcmd:
  - [systemctl, enable, --now, nginx]
`;
