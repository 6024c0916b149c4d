// SPDX-License-Identifier: GPL-2.0
/*
 * ena_up: the boot benchmark's opener, in C.
 *
 *   ena_up [--count N] [--timeout S] -- CMD...
 *
 * What `ena_nl.py --up` does, for the multi-device boot bench
 * (bench/guest-boot.sh): subscribe to RTNLGRP_LINK, run CMD, set every new
 * interface bound to the ena driver up the instant RTM_NEWLINK announces it,
 * and record (microseconds after CMD started) when it was announced, when
 * the up was sent, and when RTM_NEWLINK reported it UP, with carrier, and
 * with operstate "up". Ends when CMD has exited and N interfaces have
 * carrier and operstate "up" (what a user waits for: the kernel's link
 * watch sets it after the carrier), or at the timeout; prints the same JSON object as ena_nl.py
 * (cmd_us, cmd_rc, ifaces, order, t0_mono_us, cpu_us).
 *
 * Why a C twin: under TCG the Python listener spent milliseconds of CPU per
 * interface on its own loop (about 3 to 5 ms per device measured with
 * CLOCK_PROCESS_CPUTIME_ID, the ioctls left out), on two vCPUs that the
 * probes and opens of the next devices need. An "instant opener" should
 * cost the chain nothing but the opens themselves; udev is C too.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_IFACES	64
#define UNSET		(-1LL)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct iface {
	char name[IFNAMSIZ];
	char mac[32];
	long long newlink_us, up_sent_us, up_us, carrier_us, oper_us;
};

static struct iface ifaces[MAX_IFACES];
static int nifaces;
static char before[MAX_IFACES * 4][IFNAMSIZ];
static int nbefore;
static struct timespec t0;

static long long ts_us(const struct timespec *t)
{
	return t->tv_sec * 1000000LL + t->tv_nsec / 1000;
}

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts_us(&t) - ts_us(&t0);
}

static long long cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return ts_us(&t);
}

static void read_before(void)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nbefore < (int)ARRAY_SIZE(before)) {
		size_t n = strlen(e->d_name);

		if (n < IFNAMSIZ)
			memcpy(before[nbefore++], e->d_name, n + 1);
	}
	closedir(d);
}

static int was_before(const char *name)
{
	int i;

	for (i = 0; i < nbefore; i++)
		if (!strcmp(before[i], name))
			return 1;
	return 0;
}

static int is_ena(const char *name)
{
	char path[128], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = '\0';
	return !strcmp(basename(link), "ena");
}

static void sysfs_read(const char *name, const char *attr, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", name, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void set_up(int sock, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(sock, SIOCSIFFLAGS, &ifr) == 0)
			return;
	}
	fprintf(stderr, "# ena_up: set %s up: %s\n", name, strerror(errno));
}

static struct iface *find(const char *name)
{
	int i;

	for (i = 0; i < nifaces; i++)
		if (!strcmp(ifaces[i].name, name))
			return &ifaces[i];
	return NULL;
}

/* one RTM_NEWLINK: the name and operstate are among its first attributes */
static void newlink(struct nlmsghdr *h, int sock)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = IFLA_PAYLOAD(h), oper = -1, namelen = 0;
	const char *name = NULL;
	struct rtattr *a;
	struct iface *f;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_IFNAME && RTA_PAYLOAD(a) > 0) {
			name = RTA_DATA(a);
			namelen = RTA_PAYLOAD(a);
		} else if (a->rta_type == IFLA_OPERSTATE && RTA_PAYLOAD(a) >= 1) {
			oper = *(unsigned char *)RTA_DATA(a);
		}
		if (name && oper >= 0)
			break;
	}
	if (!name || namelen > IFNAMSIZ ||
	    strnlen(name, namelen) == (size_t)namelen || was_before(name))
		return;
	f = find(name);
	if (!f) {
		if (nifaces == MAX_IFACES || !is_ena(name))
			return;
		f = &ifaces[nifaces++];
		snprintf(f->name, IFNAMSIZ, "%s", name);
		f->newlink_us = now_us();
		f->up_us = UNSET;
		f->carrier_us = UNSET;
		f->oper_us = UNSET;
		set_up(sock, name);
		f->up_sent_us = now_us();
	}
	if ((ifi->ifi_flags & IFF_UP) && f->up_us == UNSET)
		f->up_us = now_us();
	if ((ifi->ifi_flags & IFF_LOWER_UP) && f->carrier_us == UNSET)
		f->carrier_us = now_us();
	if (oper == IF_OPER_UP && f->oper_us == UNSET)
		f->oper_us = now_us();
}

/* interfaces with carrier and operstate up */
static int ready(void)
{
	int i, n = 0;

	for (i = 0; i < nifaces; i++)
		n += ifaces[i].carrier_us != UNSET && ifaces[i].oper_us != UNSET;
	return n;
}

static int by_mac(const void *a, const void *b)
{
	return strcmp(((const struct iface *)a)->mac, ((const struct iface *)b)->mac);
}

static void print_json(long long cmd_us, const char *cmd_rc, long long cpu)
{
	static const char * const keys[] = {
		"carrier_us", "newlink_us", "oper_us", "up_sent_us", "up_us"
	};
	struct iface sorted[MAX_IFACES];
	int i, k;

	printf("{\"cmd_rc\": %s, \"cmd_us\": %lld, \"cpu_us\": %lld, \"ifaces\": {",
	       cmd_rc, cmd_us, cpu);
	for (i = 0; i < nifaces; i++) {
		long long v[] = { ifaces[i].carrier_us, ifaces[i].newlink_us,
				  ifaces[i].oper_us, ifaces[i].up_sent_us,
				  ifaces[i].up_us };
		const char *sep = "";

		printf("%s\"%s\": {", i ? ", " : "", ifaces[i].name);
		for (k = 0; k < 5; k++) {
			if (v[k] == UNSET)
				continue;
			printf("%s\"%s\": %lld", sep, keys[k], v[k]);
			sep = ", ";
		}
		printf("}");
		sysfs_read(ifaces[i].name, "address", ifaces[i].mac, sizeof(ifaces[i].mac));
	}
	memcpy(sorted, ifaces, sizeof(ifaces[0]) * nifaces);
	qsort(sorted, nifaces, sizeof(sorted[0]), by_mac);
	printf("}, \"order\": [");
	for (i = 0; i < nifaces; i++)
		printf("%s\"%s\"", i ? ", " : "", sorted[i].name);
	printf("], \"t0_mono_us\": %lld}\n", ts_us(&t0));
}

static void usage(void)
{
	fprintf(stderr, "Usage: %s [--count N] [--timeout S] -- CMD...\n", "ena_up");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	long long deadline_us, cmd_us = -1, c0;
	int count = 1, rcvbuf = 1 << 20, i, nl, sock, status;
	char rc[32] = "", buf[1 << 16];
	double timeout = 20;
	pid_t pid, w;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = atof(argv[++i]);
		else if (!strcmp(argv[i], "--"))
			break;
		else if (strcmp(argv[i], "--up"))	/* always up */
			usage();
	}
	i++;
	if (i >= argc || count < 1 || count > MAX_IFACES)
		usage();

	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (nl < 0 || sock < 0 ||
	    setsockopt(nl, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0 ||
	    bind(nl, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("ena_up: netlink");
		return 1;
	}
	read_before();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = cpu_us();
	if (posix_spawnp(&pid, argv[i], NULL, NULL, &argv[i], environ)) {
		perror("ena_up: spawn");
		return 1;
	}
	deadline_us = (long long)(timeout * 1e6);
	while (now_us() < deadline_us) {
		struct pollfd p = { .fd = nl, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;

		if (!rc[0] && waitpid(pid, &status, WNOHANG) == pid) {
			cmd_us = now_us();
			snprintf(rc, sizeof(rc), "%d",
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		}
		if (poll(&p, 1, 50) > 0) {
			n = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);
			for (h = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(h, n);
			     h = NLMSG_NEXT(h, n))
				if (h->nlmsg_type == RTM_NEWLINK)
					newlink(h, sock);
		}
		if (rc[0] && ready() >= count)
			break;
	}
	if (!rc[0]) {
		/* as ena_nl.py: the command gets 5 s more, then it is a timeout */
		long long end = now_us() + 5000000;

		while (!rc[0] && now_us() < end) {
			w = waitpid(pid, &status, WNOHANG);
			if (w == pid)
				snprintf(rc, sizeof(rc), "%d", WIFEXITED(status) ?
					 WEXITSTATUS(status) : 128 + WTERMSIG(status));
			else
				usleep(10000);
		}
		if (!rc[0])
			snprintf(rc, sizeof(rc), "\"timeout\"");
		cmd_us = now_us();
	}
	print_json(cmd_us, rc, cpu_us() - c0);
	return 0;
}
