"""The eight domains the data-realism measures were written against and are checked on (forms, money
bands, horizons): one list, so a domain added to the set is checked by every such test."""

MEASURED = (
    "podcast_ad_campaigns",
    "tire_shop_installations",
    "beauty_loyalty_rewards",
    "lab_test_orders",
    "self_storage_rentals",
    "grocery_delivery",
    "car_wash_memberships",
    "parcel_delivery_exceptions",
)


def written_against(*names: str) -> list[str]:
    """The domains a measure was written against, then the eight every data-realism measure is checked on."""
    return [*names, *MEASURED]


def none_found(name: str, found: int, checked: int) -> bool:
    """A measure found nothing on domain ``name``, and, where the domain was one it was written against
    (it has what the measure reads), it did look at something: a measure that reads nothing finds nothing."""
    return found == 0 and (name in MEASURED or checked > 0)
