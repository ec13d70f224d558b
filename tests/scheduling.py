"""make test's case scheduler under pytest-xdist (tests/conftest.py's
pytest_xdist_make_scheduler): xdist's load-scope scheduling, with the
scope of a case chosen here. Cases of one group run on one worker, in
order; every other case goes to whichever worker is free."""


def case_group(nodeid, iso_builds):
    """The scheduling group of a case: an ISO scenario's build, or the
    case itself. iso_builds maps a scenario's name to its build."""
    path, _, rest = nodeid.partition("::")
    if path.endswith("test_scenarios.py") and rest.startswith("test_scenario["):
        build = iso_builds.get(rest[len("test_scenario["):-1])
        if build:
            return "iso:" + build
    return nodeid


def make_scheduler(config, log, group_of):
    from xdist.scheduler import LoadScopeScheduling

    class CaseScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return group_of(nodeid)

    return CaseScheduling(config, log)
