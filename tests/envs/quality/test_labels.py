"""Measure 72: labels off the pool their key names (a liquor licence on a food truck), and the
independent word signal (a Spanish topic on a math tutor's session), on catalogs with and without pools."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from envs.formats.spec import EnvSpec
from envs.quality.labels import labels_apart, pool_for

LICENSES = {"restaurant": ["general", "liquor"], "food_truck": ["general", "food_service"]}


def spec(businesses: list[dict[str, Any]], licenses: list[dict[str, Any]], *, pools: bool = True) -> EnvSpec:
    license_type: dict[str, Any] = {
        "name": "license_type",
        "type": "text",
        "enum": ["general", "liquor", "food_service"],
    }
    if pools:
        license_type["pools"] = {"by": "business_id.business_type", "values": LICENSES}
    return EnvSpec.model_validate(
        {
            "id": "licences",
            "name": "Licences",
            "sector": "government",
            "description": "Business licences.",
            "tables": [
                {
                    "name": "businesses",
                    "primary_key": ["business_id"],
                    "columns": [
                        {"name": "business_id", "type": "text"},
                        {"name": "business_type", "type": "text", "enum": ["restaurant", "food_truck", "salon"]},
                        {"name": "dba_name", "type": "text"},
                    ],
                },
                {
                    "name": "business_licenses",
                    "primary_key": ["license_id"],
                    "columns": [
                        {"name": "license_id", "type": "text"},
                        {"name": "business_id", "type": "text"},
                        license_type,
                    ],
                    "foreign_keys": [
                        {"columns": ["business_id"], "table": "businesses", "references": ["business_id"]}
                    ],
                },
            ],
            "seed": {"businesses": businesses, "business_licenses": licenses},
            "tools": [
                {
                    "name": "list_businesses",
                    "description": "List businesses.",
                    "kind": "read",
                    "steps": [{"kind": "return", "sql": "SELECT * FROM businesses"}],
                }
            ],
        }
    )


BUSINESSES = [
    {"business_id": "B1", "business_type": "restaurant", "dba_name": "Blue Door"},
    {"business_id": "B2", "business_type": "food_truck", "dba_name": "Little Fox"},
    {"business_id": "B3", "business_type": "salon", "dba_name": "Restaurant Row Nails"},
]
LICENSE_ROWS = [
    {"license_id": "L1", "business_id": "B1", "license_type": "liquor"},
    {"license_id": "L2", "business_id": "B2", "license_type": "liquor"},  # a liquor licence on a food truck
    {"license_id": "L3", "business_id": "B2", "license_type": "food_service"},
    {"license_id": "L4", "business_id": "B3", "license_type": "liquor"},  # salons have no pool: not read
    {"license_id": "L5", "business_id": "B9", "license_type": "liquor"},  # no such business: not read
]


def test_a_value_off_its_keys_pool_is_counted():
    counts = labels_apart(spec(BUSINESSES, LICENSE_ROWS))
    assert (counts.keyed_labels_checked, counts.labels_off_their_pool) == (3, 1)


def test_a_catalog_without_pools_is_read_by_its_words_alone():
    counts = labels_apart(spec(BUSINESSES, LICENSE_ROWS, pools=False))
    assert counts.keyed_labels_checked == 0
    # "Restaurant Row Nails" names the restaurant type on a salon; the others name no type
    assert (counts.named_labels_checked, counts.labels_naming_another) == (1, 1)
    named_right = [{**BUSINESSES[2], "business_type": "restaurant"}]
    assert labels_apart(spec(named_right, [], pools=False)).labels_naming_another == 0


def test_a_numbered_edition_of_a_key_reads_as_the_key():
    pools = {"Awards Banquet": ["plated_three_course"]}
    assert pool_for("Awards Banquet 2", pools) == ["plated_three_course"]
    assert pool_for("Awards Banquet", pools) == ["plated_three_course"]
    assert pool_for("Awards", pools) is None and pool_for(None, pools) is None


def test_pools_that_name_no_column_are_refused():
    base = spec(BUSINESSES, LICENSE_ROWS).model_dump(mode="json")
    dumped = spec(BUSINESSES, LICENSE_ROWS, pools=False).model_dump(mode="json")
    assert "pools" not in dumped["tables"][1]["columns"][2]  # a column without pools dumps as before
    for by, message in [
        (
            "owner_id.business_type",
            "'by' ('owner_id.business_type') names 'owner_id', which is no one-column foreign key",
        ),
        ("business_id.kind", "'by' ('business_id.kind') names no column 'kind' of 'businesses'"),
        ("kind", "'by' ('kind') names no column 'kind' of 'business_licenses'"),
    ]:
        base["tables"][1]["columns"][2]["pools"]["by"] = by
        with pytest.raises(ValidationError) as err:
            EnvSpec.model_validate(base)
        assert "table 'business_licenses' column 'license_type' pools: " + message in str(err.value)
