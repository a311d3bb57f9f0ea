"""The seed world: referentially consistent rows for a domain, made with a seeded Faker.

Takes a domain and a seed; gives rows per entity (:func:`.seedgen.generate_seed`) that keep the
domain's references, timings, limits and prices, the same rows for the same seed.
"""
