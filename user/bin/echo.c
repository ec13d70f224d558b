/* echo: the arguments, separated by spaces. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char line[1024] = "";
	size_t n = 0;

	for (int i = 1; i < argc && n < sizeof(line) - 2; i++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s", i > 1 ? " " : "", argv[i]);
	puts(line);
	return 0;
}
