/* true: succeed (the smallest program: fork+exec+wait benchmarks run it). */
int main(void)
{
	return 0;
}
