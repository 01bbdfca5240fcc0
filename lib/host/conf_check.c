/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A configuration check's verdict (conf_check.h). */
#include "conf_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"

void conf_check_init(struct conf_check *c, const char *path, const char *kind)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->kind = kind;
}

void conf_check_warn(struct conf_check *c, const char *fmt, ...)
{
	size_t used = strlen(c->warn);
	va_list ap;
	int n;

	if (used + 1 >= sizeof(c->warn))
		return;
	va_start(ap, fmt);
	n = vsnprintf(c->warn + used, sizeof(c->warn) - used - 1, fmt, ap);
	va_end(ap);
	used = n < 0 ? used : strlen(c->warn);
	c->warn[used] = '\n';
	c->warn[used + 1] = '\0';
}

/* Each line of c->warn, its newline dropped. */
static void each_warning(const struct conf_check *c, void (*fn)(const char *w, int n, void *arg),
			 void *arg)
{
	const char *p = c->warn, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		fn(p, (int)(nl - p), arg);
		p = *nl ? nl + 1 : nl;
	}
}

static void warn_text(const char *w, int n, void *prog)
{
	fprintf(stderr, "%s: warning: %.*s\n", (const char *)prog, n, w);
}

static void warn_json(const char *w, int n, void *j)
{
	json_strn(j, NULL, w, (size_t)n);
}

int conf_check_report(const struct conf_check *c, const char *prog, int json)
{
	int valid = !c->err[0];

	each_warning(c, warn_text, (void *)prog);
	if (!valid)
		fprintf(stderr, "%s: %s\n", prog, c->err);
	if (json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj(&j, NULL);
		json_str(&j, "file", c->path);
		json_str(&j, "config", c->kind);
		json_bool(&j, "valid", valid);
		json_bool(&j, "defaults", c->defaults);
		if (valid)
			json_null(&j, "error");
		else
			json_str(&j, "error", c->err);
		json_arr(&j, "warnings");
		each_warning(c, warn_json, &j);
		json_end(&j);
		json_end(&j);
		json_fini(&j);
	} else if (valid) {
		printf("%s: valid %s%s\n", c->path, c->kind,
		       c->defaults ? " (no such file: the built-in defaults)" : "");
	}
	return valid ? 0 : 1;
}
